/** @module The model gateway's routes: an OpenAI-compatible chat endpoint per session, and the record of its calls. */

import * as z from "zod";
import { jsonBody } from "../../http/body";
import {
  defineRawRoute,
  defineRoute,
  type RouteEntry,
  route
} from "../../http/define-route";
import { runOperation } from "../../http/gateway";
import {
  errors,
  jsonContent,
  jsonRequest,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../../http/route-kit";
import { SessionParamsSchema } from "../../protocol";
import {
  ModelCallsQuerySchema,
  ModelCallsResponseSchema
} from "../../protocol/model-calls";
import { type ChatBody, callModel } from "./gateway";
import { answeredByGateway, modelErrors } from "./openai-error";
import { type ModelGatewayOptions, resolveGateway } from "./options";

/** What the gateway reads of a chat request; the rest goes to the upstream as sent. */
const ChatRequestSchema = () =>
  z
    .looseObject({
      model: z.string().min(1).max(256),
      // Parsed from JSON, so JSON already: checking each message again
      // would cost a walk of the whole conversation every call.
      messages: z.array(z.unknown()).min(1),
      stream: z.boolean().optional()
    })
    .meta({
      id: "ModelChatRequest",
      description:
        "An OpenAI chat completions request, forwarded to the deployment's upstream as sent."
    });

const chatRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/model/v1/chat/completions",
    tags: ["model"],
    summary: "Call the session's model (OpenAI-compatible)",
    description:
      "Point a harness's OpenAI client at `…/v1/sessions/{id}/model/v1` with a session token (a `model` token calls this and nothing else). The request goes to the deployment's upstream as sent, with token ids and logprobs asked for when the deployment says so; the answer comes back as the upstream gave it, streamed or not, once the call is recorded (GET …/model/calls). Every error the gateway answers is in OpenAI's shape, `{error: {message, type, code, param}}` with `type` and `code` Roost's error code: 409 `episode_not_running` before the first reset and after the episode ended (reset first), 409 `conflict` past an episode's calls, tokens or bytes; 502 `model_error` when the upstream cannot be reached or times out. The upstream's own errors pass through with its status and body.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(ChatRequestSchema())
    }),
    responses: () => ({
      200: {
        description:
          "The upstream's answer: `chat.completion` JSON, or server-sent `chat.completion.chunk` events ending in `data: [DONE]`."
      },
      ...modelErrors()
    })
  }
);

const callsRoute = route(
  {
    method: "get",
    path: "/v1/sessions/{id}/model/calls",
    tags: ["model"],
    summary: "Read an episode's model calls",
    description:
      "The calls made through the model gateway in an episode (the current one unless `episode`), oldest first, each with its request, answer, token ids and logprobs, compact: `messages_from` and `prompt_from` count what the `base` call already held. At most `limit` calls and `max_bytes` a page; `next_after` continues.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: ModelCallsQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(ModelCallsResponseSchema(), "A page of calls."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const modelRoutes = (
  options: ModelGatewayOptions
): readonly RouteEntry[] => [
  defineRawRoute(chatRoute, async (c) => {
    const answer = await callModel(
      c,
      c.req.valid("json") as ChatBody,
      resolveGateway(options, c.env)
    );
    answeredByGateway(c);
    return answer;
  }),
  defineRoute(callsRoute, async (c) =>
    c.json(await runOperation(c, "modelCalls", c.req.valid("query")), 200)
  )
];
