/** @module A decision model as a judge asks it: its `chat`, with the judge's tries and time limit. */

import type { JudgeLimits, JudgeModel } from "../rewards/judges";
import { describeError } from "../tools/content";
import type { DecisionModel } from "../tree/types";
import { ModelError } from "./model-error";
import { withRetries } from "./retry";

const chatOnly = () => Promise.reject(new Error("A judge only chats."));

/**
 * `model` as a judge asks it (a model without `chat` cannot judge: that
 * throws, and the judge reports it as its error). The
 * model must be the configured one unwrapped: these limits replace the
 * retries every model gets for runs, so a judge with `attempts: 2` asks
 * at most twice. An answer `check` refuses is asked again, as a decision
 * that does not parse is; what the last try threw is the judge's error.
 */
export const judgeModel = (
  model: DecisionModel,
  limits: JudgeLimits
): JudgeModel => {
  const chat = model.chat?.bind(model);
  if (chat === undefined) {
    throw new Error(`model ${model.name} cannot judge: it has no chat()`);
  }
  return {
    name: model.name,
    ask: (messages, check) =>
      withRetries(
        {
          name: model.name,
          decide: chatOnly,
          respond: chatOnly,
          chat: async (m, options) => {
            const text = await chat(m, options).catch((error: unknown) => {
              throw reportable(model.name, error);
            });
            try {
              check(text);
            } catch (refused) {
              throw new ModelError(describeError(refused), true, undefined, {
                cause: refused
              });
            }
            return text;
          }
        },
        { attempts: limits.attempts, timeoutMs: limits.timeoutMs }
      ).chat!(messages, { decisionIndex: 0 })
  };
};

/**
 * What a failed call may say in a step's report, which every client of
 * the session reads: a server's own answer (its status and message), or
 * else only that the model could not be reached. A transport error names
 * the endpoint (the OpenAI adapter's says "at <url>"), which stays on the
 * server with the key, and a refused key is reported by status alone.
 */
const reportable = (name: string, error: unknown): unknown => {
  // A refused credential's message may quote part of the key (OpenAI's
  // "Incorrect API key provided: sk-…abcd"): only its status is said.
  if (
    error instanceof ModelError &&
    (error.status === 401 || error.status === 403)
  ) {
    return new ModelError(
      `the judge's model ${name} refused the deployment's credentials (${error.status})`,
      false,
      error.status,
      { cause: error }
    );
  }
  // A transport failure carries its cause and no status; a model's own
  // complaint (an empty answer) has neither, and says nothing secret.
  // Anything else a configured model throws (a factory's own fetch
  // failing, whose message may name its endpoint) is said as unreachable.
  if (
    error instanceof ModelError &&
    (error.status !== undefined || error.cause === undefined)
  ) {
    return error;
  }
  return new ModelError(
    `the judge's model ${name} could not be reached`,
    error instanceof ModelError ? error.retryable : true,
    undefined,
    { cause: error }
  );
};
