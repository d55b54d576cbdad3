/** @module A decision model on a Workers AI binding, with the decision schema enforced by JSON mode. */

import { RoostError } from "../errors";
import type { DecisionModel } from "../tree/types";
import { ModelError } from "./model-error";
import {
  decisionMessages,
  decisionSchema,
  parseDecision,
  textMessages
} from "./prompt";

/**
 * The part of the `Ai` binding this uses, declared here so the core does not
 * depend on the Workers type definitions.
 */
export interface AiBindingLike {
  run(
    model: string,
    inputs: Record<string, unknown>,
    options?: Record<string, unknown>
  ): Promise<unknown>;
}

export interface WorkersAIModelConfig {
  binding: AiBindingLike;
  /** A Workers AI text generation model, e.g. `@cf/meta/llama-3.3-70b-instruct-fp8-fast`. */
  model: string;
  name?: string;
}

/**
 * The reply of a text model: `response` is a string, or already an object
 * when JSON mode parsed it. Models served in the OpenAI format answer with
 * `choices` instead.
 */
const replyOf = (result: unknown): unknown => {
  if (typeof result !== "object" || result === null) return undefined;
  const r = result as {
    response?: unknown;
    choices?: { message?: { content?: unknown } }[];
  };
  return r.response ?? r.choices?.[0]?.message?.content;
};

/**
 * A `DecisionModel` on `env.AI`. Every error of the binding is taken as
 * retryable: it does not say which failures are the caller's fault.
 *
 * @example
 * const model = withRetries(workersAIModel({ binding: env.AI, model: "@cf/qwen/qwen3-30b-a3b-fp8" }));
 */
export const workersAIModel = (config: WorkersAIModelConfig): DecisionModel => {
  const name = config.name ?? `workers-ai:${config.model}`;
  const run = async (inputs: Record<string, unknown>): Promise<unknown> => {
    try {
      return replyOf(await config.binding.run(config.model, inputs));
    } catch (error) {
      throw new ModelError(
        `Workers AI model ${config.model} failed: ${error instanceof Error ? error.message : String(error)}`,
        true,
        undefined,
        { cause: error }
      );
    }
  };
  return {
    name,
    async decide(request) {
      const reply = await run({
        messages: decisionMessages(request, "json"),
        response_format: {
          type: "json_schema",
          json_schema: decisionSchema(request.options)
        }
      });
      if (reply === undefined || reply === null || reply === "")
        throw new ModelError("The model made no decision.", true);
      return parseDecision(reply, request.options);
    },
    async respond(request) {
      const reply = await run({ messages: textMessages(request) });
      if (typeof reply !== "string" || reply.trim() === "")
        throw new ModelError("The model wrote an empty answer.", true);
      return reply;
    },
    async chat(messages) {
      const reply = await run({ messages });
      // JSON mode is not asked for, but a binding may still hand an object back.
      if (typeof reply === "object" && reply !== null) {
        return JSON.stringify(reply);
      }
      if (typeof reply !== "string" || reply.trim() === "")
        throw new ModelError("The model wrote an empty answer.", true);
      return reply;
    }
  };
};

/**
 * `env.AI` as a decision model, only when `ROOST_WORKERS_AI_MODEL` names a
 * model: having the binding alone must not start spending on inference.
 */
export const workersAIModelFromEnv = (
  env: Record<string, unknown>
): DecisionModel | undefined => {
  const model = env.ROOST_WORKERS_AI_MODEL;
  if (typeof model !== "string" || model === "") return undefined;
  const binding = env.AI as Partial<AiBindingLike> | undefined;
  if (typeof binding?.run !== "function") {
    throw new RoostError(
      "internal",
      'ROOST_WORKERS_AI_MODEL is set but there is no AI binding; add [ai] binding = "AI" to wrangler.toml.'
    );
  }
  return workersAIModel({ binding: binding as AiBindingLike, model });
};
