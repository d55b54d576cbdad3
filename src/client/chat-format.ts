/** @module Roost's messages in OpenAI's chat format, as a chat-completions endpoint takes them and a trainer loads them. */

import { contentText, withStringArguments } from "../messages/build";
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
          content: m.content == null ? null : contentText(m.content),
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: withStringArguments(calls)
              })
        };
      }
      case "tool":
        return {
          role: "tool",
          tool_call_id: m.tool_call_id,
          content: contentText(m.content)
        };
      default:
        return { role: m.role, content: m.content };
    }
  });
