/** @module The AI SDK chat endpoint: the body `useChat`'s default transport POSTs, and the chat id it reconnects with. */

import * as z from "zod";
import { lazy } from "../lazy";
import { SessionIdSchema } from "./http-sessions";

/** The id `useChat` keeps for a conversation; it names the stream to resume. */
export const ChatIdSchema = lazy(() => z.string().min(1).max(256));

/** A UI message part; only text parts are read, the rest pass untouched. */
const ChatPartSchema = lazy(() => z.looseObject({ type: z.string() }));

const ChatMessageSchema = lazy(() =>
  z.looseObject({
    id: z.string(),
    role: z.enum(["system", "user", "assistant"]),
    parts: z.array(ChatPartSchema())
  })
);

export const ChatRequestSchema = lazy(() =>
  z
    .looseObject({
      /** The chat's id: a reconnect asks for the stream of this chat's run. */
      id: ChatIdSchema(),
      messages: z.array(ChatMessageSchema()).min(1),
      trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
      messageId: z.string().optional(),
      /** A configured model name (useChat's `body` option); the deployment's default otherwise. */
      model: z.string().min(1).optional()
    })
    .meta({
      id: "ChatRequest",
      description:
        "What the AI SDK's DefaultChatTransport sends: the chat id, its UI messages (the last user message's text is the prompt), the trigger, and any fields of useChat's `body` option."
    })
);
export type ChatRequest = z.infer<ReturnType<typeof ChatRequestSchema>>;

export const ChatStreamParamsSchema = lazy(() =>
  z.object({
    id: SessionIdSchema(),
    chat_id: ChatIdSchema()
  })
);

/** The prompt of a chat request: the text parts of its last user message, joined by blank lines. */
export const chatPrompt = (request: ChatRequest): string => {
  const last = request.messages.findLast((m) => m.role === "user");
  if (last === undefined) return "";
  return last.parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n\n")
    .trim();
};
