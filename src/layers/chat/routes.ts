/**
 * @module The AI SDK chat endpoint: a `useChat` message starts a
 * decision-tree run, answered with the run's UI message stream (SSE); a
 * reconnect gets the stream of its chat's run still going, replayed from
 * the start. The session object makes the stream (stream.ts).
 */

import type { Context } from "hono";
import * as z from "zod";
import { fromErrorBody, RoostError } from "../../errors";
import { jsonBody } from "../../http/body";
import {
  defineRawRoute,
  type RouteEntry,
  route
} from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import {
  RETRY_AFTER_SECONDS,
  runOperation,
  sessionOf
} from "../../http/gateway";
import {
  errors,
  jsonRequest,
  MUTATION_ERRORS,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../../http/route-kit";
import {
  ChatRequestSchema,
  ChatStreamParamsSchema,
  chatPrompt,
  type ErrorResponse,
  SessionParamsSchema,
  UI_STREAM_HEADERS
} from "../../protocol";
import { CHAT_STREAM_PATH } from "./stream";

const common = { tags: ["chat"], security: SESSION_SECURITY };

const stream = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: z.string() } }
});

export const chatRoute = route(
  {
    ...common,
    method: "post",
    path: "/v1/sessions/{id}/chat",
    summary: "Chat with a decision tree (AI SDK useChat)",
    description:
      "Takes the body the AI SDK's DefaultChatTransport sends, starts a decision-tree run on the text of the last user message (as POST …/runs does; `model` from useChat's `body` option picks the model), and answers with the run's UI message stream: SSE `data:` chunks (start, start-step/finish-step per pass, text, dynamic tool parts, data-decision, data-tree, data-result, finish or error), then `data: [DONE]`. 409 while another run is going; 400 when the last user message has no text or the environment has no tree.",
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(ChatRequestSchema())
    }),
    responses: () => ({
      200: stream("The run's UI message stream."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const chatStreamRoute = route(
  {
    ...common,
    method: "get",
    path: "/v1/sessions/{id}/chat/{chat_id}/stream",
    summary: "Resume a chat's stream",
    description:
      "What a reconnecting useChat (`resume: true`) asks: the UI message stream of the run this chat started, if it is still going, replayed from its start and then live; 204 when no run of this chat is going (including after it ended, or when the going run belongs to another chat or to POST …/runs)."
  },
  {
    request: () => ({ params: ChatStreamParamsSchema() }),
    responses: () => ({
      200: stream("The run's UI message stream, from its start."),
      204: { description: "No run of this chat is going." },
      ...errors(...SESSION_ERRORS)
    })
  }
);

/** Asks the session object for a stream; its JSON errors become RoostErrors. */
const openStream = async (
  c: Context<AppEnv>,
  query: Record<string, string>
): Promise<Response> => {
  const url = new URL(CHAT_STREAM_PATH, "https://session");
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  let response: Response;
  try {
    response = await sessionOf(c).fetch(new Request(url));
  } catch (error) {
    // Opening a stream changes nothing, so the client may simply ask again.
    console.error("Roost: a chat stream could not be opened", error);
    throw new RoostError(
      "unavailable",
      query.run === undefined
        ? "The chat's stream could not be opened; retry."
        : "The run started, but its stream could not be opened; resume it with GET …/chat/:chat_id/stream.",
      {
        retry_after_seconds: RETRY_AFTER_SECONDS,
        ...(query.run === undefined ? {} : { run_id: query.run })
      }
    );
  }
  if (response.status === 204) return c.body(null, 204);
  if (!response.ok) {
    const body = (await response.json()) as ErrorResponse;
    throw fromErrorBody(body.error);
  }
  return new Response(response.body, { headers: UI_STREAM_HEADERS });
};

export const chatRoutes: readonly RouteEntry[] = [
  defineRawRoute(chatRoute, async (c) => {
    const request = c.req.valid("json");
    const prompt = chatPrompt(request);
    if (prompt === "") {
      throw new RoostError(
        "invalid_request",
        "The last user message has no text: the chat's prompt is the text parts of its last user message.",
        { chat_id: request.id }
      );
    }
    const { run_id } = await runOperation(c, "startChat", {
      prompt,
      chat_id: request.id,
      ...(request.model === undefined ? {} : { model: request.model })
    });
    return openStream(c, { run: run_id });
  }),
  defineRawRoute(chatStreamRoute, async (c) => {
    const { chat_id } = c.req.valid("param");
    return openStream(c, { chat: chat_id });
  })
];
