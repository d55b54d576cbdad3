/** @module Typed state (read and PATCH), the transcript, and the viewer frame of a session. */

import {
  FrameQuerySchema,
  FrameResponseSchema,
  MessagesQuerySchema,
  MessagesResponseSchema,
  SessionParamsSchema,
  StatePatchRequestSchema,
  StatePatchResponseSchema,
  StateQuerySchema,
  StateResponseSchema
} from "../../protocol";
import { jsonBody } from "../body";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { runOperation } from "../gateway";
import {
  errors,
  jsonContent,
  jsonRequest,
  MUTATION_ERRORS,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";

const common = { security: SESSION_SECURITY };

export const stateReadRoute = route(
  {
    ...common,
    method: "get",
    path: "/v1/sessions/{id}/state",
    tags: ["state"],
    summary: "Read the typed state",
    description:
      "Every key but messages, which is paged from /messages. Values come whole, in the state's key order, within max_bytes (1 MiB by default); a larger state is cut after a value and next_cursor reads on."
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: StateQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(StateResponseSchema(), "The state."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const statePatchRoute = route(
  {
    ...common,
    method: "patch",
    path: "/v1/sessions/{id}/state",
    tags: ["state"],
    summary: "Merge one state value",
    description:
      "Uses the key's handler unless handler names another. 400 unknown_state_key for a key outside the schema, invalid_state_value when the merged value fails it. Needs a reset session. Accepts an Idempotency-Key.",
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(StatePatchRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(
        StatePatchResponseSchema(),
        "The key's value after the merge."
      ),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const messagesRoute = route(
  {
    ...common,
    method: "get",
    path: "/v1/sessions/{id}/messages",
    tags: ["state"],
    summary: "Page through the transcript",
    description:
      "Whole messages, oldest first: at most limit of them and about max_bytes (1 MiB by default, at most 4 MiB; the first message always comes). truncated says the byte budget ended the page; next_cursor reads on."
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: MessagesQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(
        MessagesResponseSchema(),
        "A page of the transcript, oldest first."
      ),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const frameRoute = route(
  {
    ...common,
    method: "get",
    path: "/v1/sessions/{id}/frame",
    tags: ["state"],
    summary: "A snapshot for viewers",
    description:
      "The environment's own frame(), or its state and store keys within max_bytes (truncated when they did not all fit: read on from /state and /environment/keys). An environment frame over 4 MiB is a 413."
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: FrameQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(FrameResponseSchema(), "The environment's frame."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const stateRoutes: readonly RouteEntry[] = [
  defineRoute(stateReadRoute, async (c) =>
    c.json(await runOperation(c, "readState", c.req.valid("query")), 200)
  ),

  defineRoute(statePatchRoute, async (c) => {
    const value = await runOperation(c, "patchState", c.req.valid("json"));
    return c.json(value, 200);
  }),

  defineRoute(messagesRoute, async (c) => {
    const value = await runOperation(c, "messages", c.req.valid("query"));
    return c.json(value, 200);
  }),

  defineRoute(frameRoute, async (c) =>
    c.json(await runOperation(c, "frame", c.req.valid("query")), 200)
  )
];
