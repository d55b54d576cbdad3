/** @module What a policy is: observations, tools and history in, an action out. */

import type { JsonObject } from "../json";
import type { Message } from "../messages/schema";
import type { ActionInput, OpenAITool } from "../protocol";

/** Tokens a model endpoint reported for one decision. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What a rollout tells a policy of the episode it decides for. */
export interface PolicyContext {
  /**
   * The session's model gateway, when the rollout sends model calls
   * through it (`modelGateway: true`): an OpenAI base URL and the key for
   * it. A policy backed by a model calls it there instead of its own
   * endpoint, so the session records the calls with their token ids.
   */
  gateway?: { baseUrl: string; apiKey: string };
  /** In a multi-agent environment, the agent this decision is for. */
  agent?: string;
}

/** An action with what it cost to decide, for policies backed by a model. */
export interface PolicyDecision {
  action: ActionInput;
  usage?: TokenUsage;
  /** Why earlier attempts at this decision failed (429s, timeouts). */
  retries?: string[];
}

/**
 * Chooses the next action. `observations` are the latest (from the reset or
 * the last step); `history` is every message before them, actions
 * included, so `[...history, ...observations]` is the whole conversation —
 * what a chat model would be sent. A policy may answer a bare action or a
 * `PolicyDecision`; `info` (model, sampling) goes into every trajectory.
 *
 * @example
 * const always: Policy = () => ({ tool_calls: [{ id: "c1", function: { name: "incr", arguments: {} } }] });
 */
export interface Policy {
  (
    observations: Message[],
    tools: OpenAITool[],
    history: Message[],
    context?: PolicyContext
  ): ActionInput | PolicyDecision | Promise<ActionInput | PolicyDecision>;
  info?: JsonObject;
}

/** Text of a message's content, image parts left out. */
export const messageText = (message: Message): string => {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("");
};

/** An action of one tool call, with arguments as an object. */
export const callTool = (
  id: string,
  name: string,
  args: Record<string, unknown>
): ActionInput => ({
  role: "assistant",
  tool_calls: [{ id, type: "function", function: { name, arguments: args } }]
});
