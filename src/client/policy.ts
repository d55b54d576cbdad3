/** @module What a policy is: observations, tools and history in, an action out. */

import type { Message } from "../messages/schema";
import type { ActionInput, OpenAITool } from "../protocol";

/**
 * Chooses the next action. `observations` are the latest (from the reset or
 * the last step); `history` is every message before them, actions
 * included, so `[...history, ...observations]` is the whole conversation —
 * what a chat model would be sent.
 *
 * @example
 * const always: Policy = () => ({ tool_calls: [{ id: "c1", function: { name: "incr", arguments: {} } }] });
 */
export type Policy = (
  observations: Message[],
  tools: OpenAITool[],
  history: Message[]
) => ActionInput | Promise<ActionInput>;

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
