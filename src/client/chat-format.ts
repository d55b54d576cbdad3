/** @module Roost's messages in OpenAI's chat format, as a chat-completions endpoint takes them and a trainer loads them. */

import type { Message } from "../messages/schema";

export type ChatMessage =
  | { role: "system" | "user"; content: Message["content"] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: {
        id: string;
        type: "function";
        function: { name: string; arguments: string };
      }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

const text = (content: Message["content"] | null | undefined): string =>
  content == null
    ? ""
    : typeof content === "string"
      ? content
      : content.map((p) => (p.type === "text" ? p.text : "")).join("");

/**
 * Arguments become the JSON string OpenAI's format carries (a string the
 * model produced stays exactly as it was); Roost's `is_error` and tool
 * names, which the format has no place for, are left out.
 */
export const toChatMessages = (messages: readonly Message[]): ChatMessage[] =>
  messages.map((m): ChatMessage => {
    switch (m.role) {
      case "assistant": {
        const calls = m.tool_calls ?? [];
        return {
          role: "assistant",
          content: m.content == null ? null : text(m.content),
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: "function" as const,
                  function: {
                    name: c.function.name,
                    arguments:
                      typeof c.function.arguments === "string"
                        ? c.function.arguments
                        : JSON.stringify(c.function.arguments)
                  }
                }))
              })
        };
      }
      case "tool":
        return {
          role: "tool",
          tool_call_id: m.tool_call_id,
          content: text(m.content)
        };
      default:
        return { role: m.role, content: m.content };
    }
  });
