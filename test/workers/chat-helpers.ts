/**
 * @module The chat endpoint as useChat calls it: the body its
 * DefaultChatTransport sends, the SSE events and UI message chunks of an
 * answer, and a wait for a forest run's gate.
 */

import { expect, vi } from "vitest";
import { flags } from "../fixtures/environments";
import { send, type TestSession } from "./helpers";

export type Chunk = { type: string } & Record<string, unknown>;

/** The body useChat's DefaultChatTransport sends for one user message. */
export const chatBody = (prompt: string, chatId = "chat-1", extra = {}) => ({
  id: chatId,
  messages: [
    {
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: prompt }]
    }
  ],
  trigger: "submit-message",
  ...extra
});

/** Every SSE event of a body, `[DONE]` included, in order. */
export const sseEvents = async (response: Response): Promise<string[]> => {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length));
};

export const chunksOf = async (response: Response): Promise<Chunk[]> => {
  const events = await sseEvents(response);
  expect(events.at(-1)).toBe("[DONE]");
  return events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
};

export const chat = (
  s: TestSession,
  prompt: string,
  chatId?: string,
  extra = {}
) => s.call("/chat", send("POST", chatBody(prompt, chatId, extra)));

export const started = (id: string) =>
  vi.waitFor(
    () => {
      if (!flags.started.has(id)) throw new Error(`gate ${id} not reached`);
    },
    { timeout: 15_000, interval: 10 }
  );

export const types = (chunks: Chunk[]) => chunks.map((c) => c.type);
