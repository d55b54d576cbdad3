/**
 * @module The conversation kept in the tab's sessionStorage, per chat id.
 * The chat endpoint keeps the conversation server-side (the tree's history)
 * and a resume replays only the run going, so without this a reload would
 * show that run alone. A resumed run replaces its saved message in place
 * (same id), so nothing shows twice.
 */
import type { UIMessage } from "ai";

const key = (chatId: string) => `roost-chat-messages:${chatId}`;

export const loadMessages = (chatId: string): UIMessage[] => {
  try {
    const saved = JSON.parse(sessionStorage.getItem(key(chatId)) ?? "[]");
    return Array.isArray(saved) ? (saved as UIMessage[]) : [];
  } catch {
    return [];
  }
};

export const saveMessages = (
  chatId: string,
  messages: readonly UIMessage[]
): void => {
  try {
    sessionStorage.setItem(key(chatId), JSON.stringify(messages));
  } catch {
    // Full storage: the chat goes on, only a reload forgets older turns.
  }
};

/** The chat id of a session's page: stable, so a reload resumes it. */
export const chatIdOf = (sessionId: string): string => `chat-${sessionId}`;
