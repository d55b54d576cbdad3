/** @module Small builders for the messages an agent loop exchanges. */

import type {
  AssistantMessage,
  Content,
  ToolCall,
  ToolMessage
} from "./schema";

export const systemMessage = (content: Content) =>
  ({ role: "system", content }) as const;

export const userMessage = (content: Content) =>
  ({ role: "user", content }) as const;

let callCounter = 0;

/** A short call id; models and providers accept any string. */
export const newToolCallId = (): string =>
  `call_${Date.now().toString(36)}${(callCounter++).toString(36)}`;

/**
 * An action: an assistant message calling tools.
 *
 * @example
 * toolCalls({ name: "incr" }, { name: "search", arguments: { q: "frogs" } })
 */
export const toolCalls = (
  ...calls: { name: string; arguments?: Record<string, unknown>; id?: string }[]
): AssistantMessage => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map(
    (c): ToolCall => ({
      id: c.id ?? newToolCallId(),
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) }
    })
  )
});

/** The tool message answering `call`. */
export const toolResponse = (
  call: Pick<ToolCall, "id" | "function">,
  content: Content,
  isError = false
): ToolMessage => ({
  role: "tool",
  tool_call_id: call.id,
  name: call.function.name,
  content,
  ...(isError ? { is_error: true } : {})
});

/** The plain text of any content (image parts are skipped). */
export const contentText = (content: Content | null | undefined): string =>
  typeof content === "string"
    ? content
    : (content ?? [])
        .map((p) => (p.type === "text" ? p.text : ""))
        .filter(Boolean)
        .join("\n");

/** Tool calls with arguments as the JSON strings OpenAI's wire format carries; a string stays exactly as it was written. */
export const withStringArguments = (calls: readonly ToolCall[]) =>
  calls.map((c) => ({
    id: c.id,
    type: "function" as const,
    function: {
      name: c.function.name,
      arguments:
        typeof c.function.arguments === "string"
          ? c.function.arguments
          : JSON.stringify(c.function.arguments)
    }
  }));
