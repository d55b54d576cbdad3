/** @module Retries and a time limit around any decision model. */

import type { CallOptions, DecisionModel } from "../tree/types";
import { ModelError } from "./model-error";

export interface RetryOptions {
  /** Tries in all, the first included. Default 3. */
  attempts?: number;
  /** Wait before the second try; doubled before each later one. Default 250 ms. */
  baseDelayMs?: number;
  /** Cap on one wait. Default 10 s. */
  maxDelayMs?: number;
  /** Limit on one call; hitting it aborts the call's signal and counts as retryable. Default 60 s. */
  timeoutMs?: number;
  /** Injected by tests so backoff is observable without waiting. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Jitter source in [0, 1). Without it the waits are exact, so tests are
   * deterministic; with it each wait is scaled into [50 %, 100 %) so many
   * sessions hitting one overloaded server do not retry in lockstep.
   */
  random?: () => number;
}

export const DEFAULT_MODEL_ATTEMPTS = 3;
export const DEFAULT_MODEL_BASE_DELAY_MS = 250;
export const DEFAULT_MODEL_MAX_DELAY_MS = 10_000;
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

const realSleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait after the `failures`-th failed try (1-based). */
export const backoffDelay = (
  failures: number,
  options: RetryOptions = {}
): number => {
  const base = options.baseDelayMs ?? DEFAULT_MODEL_BASE_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MODEL_MAX_DELAY_MS;
  const exact = Math.min(max, base * 2 ** (failures - 1));
  return options.random ? exact * (0.5 + options.random() / 2) : exact;
};

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new Error("The model call was aborted.");

/**
 * Runs one call with its own signal, aborted on the caller's abort or on the
 * time limit. The race does not rely on the model honouring the signal, so a
 * model that ignores it still cannot hang a session.
 */
const withTimeout = async <T>(
  call: (options: CallOptions) => Promise<T>,
  options: CallOptions,
  timeoutMs: number,
  label: string
): Promise<T> => {
  const outer = options.signal;
  if (outer?.aborted) throw abortReason(outer);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject before aborting, so the race reports the timeout rather than
      // whatever error the model throws when its signal fires.
      reject(
        new ModelError(
          `Model ${label} did not answer within ${timeoutMs} ms.`,
          true
        )
      );
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    if (outer) {
      onAbort = () => {
        reject(abortReason(outer));
        controller.abort(outer.reason);
      };
      outer.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([
      call({ ...options, signal: controller.signal }),
      stopped
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort) outer?.removeEventListener("abort", onAbort);
  }
};

/**
 * Wraps a model so retryable `ModelError`s (timeouts, overload, unparsable
 * output) are tried again with exponential backoff; after the last try the
 * last error is thrown. Other errors, and the caller's own abort, pass
 * through at once.
 *
 * @example
 * const model = withRetries(openAIModel({ baseUrl, model: "qwen3" }), { attempts: 4 });
 */
export const withRetries = (
  model: DecisionModel,
  options: RetryOptions = {}
): DecisionModel => {
  const attempts = Math.max(1, options.attempts ?? DEFAULT_MODEL_ATTEMPTS);
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const sleep = options.sleep ?? realSleep;

  const run = async <T>(
    call: (callOptions: CallOptions) => Promise<T>,
    callOptions: CallOptions
  ): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTimeout(call, callOptions, timeoutMs, model.name);
      } catch (error) {
        const retry =
          error instanceof ModelError &&
          error.retryable &&
          attempt < attempts &&
          !callOptions.signal?.aborted;
        if (!retry) throw error;
        await sleep(backoffDelay(attempt, options));
        if (callOptions.signal?.aborted) throw abortReason(callOptions.signal);
      }
    }
  };

  const chat = model.chat?.bind(model);
  return {
    name: model.name,
    decide: (request, callOptions) =>
      run((o) => model.decide(request, o), callOptions),
    respond: (request, callOptions) =>
      run((o) => model.respond(request, o), callOptions),
    ...(chat === undefined
      ? {}
      : {
          chat: (messages, callOptions) =>
            run((o) => chat(messages, o), callOptions)
        })
  };
};
