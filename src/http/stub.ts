/** @module Calling a session's Durable Object: RPC results become RoostErrors, platform errors are retried. */

import { fromErrorBody, RoostError } from "../errors";
import type { RpcResult } from "../session/rpc";
import type { SessionObject } from "../session/session-object";

/**
 * What the worker may call on a session: `op` (every operation, through
 * the table) and `fetch` (the socket upgrade). Workers' own stub typing
 * recurses through the JSON and message types deeper than tsc allows; the
 * methods take and return plain data, so at runtime the shapes are these.
 */
export type SessionStub = Pick<SessionObject, "op" | "fetch">;

const stubOf = (
  namespace: DurableObjectNamespace<SessionObject>,
  id: DurableObjectId,
  options: DurableObjectNamespaceGetDurableObjectOptions | undefined
): SessionStub => namespace.get(id, options) as unknown as SessionStub;

/** Seconds a client should wait after a 503 caused by the platform. */
export const RETRY_AFTER_SECONDS = 1;

/** Attempts in all, each with a fresh stub (a broken stub stays broken). */
export const MAX_ATTEMPTS = 3;

export interface CallOptions {
  /**
   * Whether a retryable platform error may be retried. Reads and requests
   * with an Idempotency-Key may; a mutation without one may not, because
   * the first attempt may have committed before its connection broke.
   */
  retry: boolean;
  locationHint?: DurableObjectLocationHint;
}

interface PlatformError {
  retryable?: unknown;
  overloaded?: unknown;
  /** Set when the object was reset (crashed, aborted, redeployed) under the call. */
  durableObjectReset?: unknown;
}

const platformError = (error: unknown): PlatformError | undefined =>
  error instanceof Error ? (error as PlatformError) : undefined;

const unavailable = (message: string): RoostError =>
  new RoostError("unavailable", message, {
    retry_after_seconds: RETRY_AFTER_SECONDS
  });

/**
 * Calls `call` on a stub of `id` and returns the value of its RpcResult,
 * throwing the RoostError of an `{ ok: false }`. `call` gets the attempt
 * number, so an operation can recognise its own earlier, committed attempt.
 * Overloaded objects are never retried (that worsens the overload); other
 * retryable errors are, up to MAX_ATTEMPTS, then become 503 `unavailable`.
 */
export const callSession = async <T>(
  namespace: DurableObjectNamespace<SessionObject>,
  id: DurableObjectId,
  call: (stub: SessionStub, attempt: number) => Promise<RpcResult<T>>,
  options: CallOptions
): Promise<T> => {
  const getOptions =
    options.locationHint === undefined
      ? undefined
      : { locationHint: options.locationHint };
  for (let attempt = 1; ; attempt++) {
    let result: RpcResult<T>;
    try {
      result = await call(stubOf(namespace, id, getOptions), attempt);
    } catch (error) {
      const platform = platformError(error);
      if (platform?.overloaded === true) {
        throw unavailable("The session is overloaded; retry later.");
      }
      // A reset object lost only what it had not committed, like any
      // retryable interruption.
      const interrupted =
        platform?.retryable === true || platform?.durableObjectReset === true;
      if (!interrupted) throw error;
      if (!options.retry) {
        throw unavailable(
          "The session was interrupted; the request may or may not have been applied. Retry with an Idempotency-Key to make retries safe."
        );
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw unavailable(
          "The session is temporarily unavailable; retry later."
        );
      }
      continue;
    }
    if (result.ok) return result.value;
    throw fromErrorBody(result.error);
  }
};
