/**
 * @module A policy backed by any OpenAI-compatible chat-completions endpoint
 * with tool calling (OpenAI, vLLM, SGLang, Ollama, Workers AI's compatible
 * endpoint): the conversation goes in as chat messages with the tools, and
 * the tool calls the model makes are the step's action.
 */

import type { JsonObject } from "../json";
import type { ActionInput } from "../protocol";
import {
  type ChatEndpoint,
  type Completion,
  requestCompletion
} from "./chat-completion";
import { toChatMessages } from "./chat-format";
import { RoostClientError } from "./client-error";
import type { Policy, PolicyDecision, TokenUsage } from "./policy";

export interface OpenAIPolicyOptions extends ChatEndpoint {
  model: string;
  temperature?: number;
  maxTokens?: number;
}

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) ? value : 0;

/**
 * The model's message as an action. Whatever it got wrong stays in the
 * action for the environment to answer as it answers a model: no tool call
 * is Roost's "No tool calls received" observation, unparsable arguments
 * and unknown names become error tool messages the model reads next turn.
 */
const toAction = (completion: Completion, decision: number): ActionInput => {
  const message = completion.choices?.[0]?.message;
  if (message === undefined) {
    throw new RoostClientError(
      "model_error",
      "The model endpoint answered without choices[0].message.",
      200
    );
  }
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    role: "assistant",
    content: typeof message.content === "string" ? message.content : null,
    tool_calls: calls.map((call, i) => ({
      id:
        typeof call.id === "string" && call.id !== ""
          ? call.id
          : `call_${decision}_${i}`,
      type: "function",
      function: {
        name: typeof call.function?.name === "string" ? call.function.name : "",
        arguments:
          typeof call.function?.arguments === "string"
            ? call.function.arguments
            : JSON.stringify(call.function?.arguments ?? {})
      }
    }))
  };
};

/**
 * @example
 * const policy = openaiPolicy({ baseUrl: "http://127.0.0.1:8000/v1", model: "qwen3-8b", temperature: 1 });
 * await rollout({ baseUrl, environment: "calculator", policy, episodes: 64 });
 */
export const openaiPolicy = (options: OpenAIPolicyOptions): Policy => {
  const sampling: JsonObject = {
    ...(options.temperature === undefined
      ? {}
      : { temperature: options.temperature }),
    ...(options.maxTokens === undefined
      ? {}
      : { max_tokens: options.maxTokens })
  };
  let decisions = 0;

  const policy = async (
    ...[observations, tools, history, context]: Parameters<Policy>
  ): Promise<PolicyDecision> => {
    const decision = decisions++;
    const body = JSON.stringify({
      model: options.model,
      messages: toChatMessages([...history, ...observations]),
      tools,
      tool_choice: "auto",
      ...sampling
    });
    // Through the session's gateway when the rollout asks: the upstream
    // is then the server's, and the calls are recorded with their tokens.
    const endpoint =
      context?.gateway === undefined
        ? options
        : { ...options, ...context.gateway };
    const { completion, failures } = await requestCompletion(endpoint, body);
    const usage: TokenUsage | undefined = completion.usage && {
      prompt_tokens: count(completion.usage.prompt_tokens),
      completion_tokens: count(completion.usage.completion_tokens),
      total_tokens: count(completion.usage.total_tokens)
    };
    return {
      action: toAction(completion, decision),
      ...(usage ? { usage } : {}),
      ...(failures.length > 0 ? { retries: failures } : {})
    };
  };
  return Object.assign(policy, {
    info: {
      policy: "openai",
      model: options.model,
      base_url: options.baseUrl,
      ...sampling
    }
  });
};
