/** @module Reset and step: the episode routes of a session. */

import {
  ResetRequestSchema,
  ResetResponseSchema,
  SessionParamsSchema,
  StepRequestSchema,
  StepResponseSchema
} from "../../protocol";
import { jsonBody } from "../body";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { runOperation } from "../gateway";
import {
  errors,
  jsonContent,
  jsonRequest,
  MUTATION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";

export const resetRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/reset",
    tags: ["episodes"],
    summary: "Start a new episode",
    description:
      "The store, hidden store, state and transcript of the previous episode are gone. The task defaults to the one given at creation. Accepts an Idempotency-Key.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(ResetRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(
        ResetResponseSchema(),
        "The first observations and the tools."
      ),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const stepRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/step",
    tags: ["episodes"],
    summary: "Take one action",
    description:
      "Runs the action's tool calls and evaluates the step. 409 episode_not_running before a reset or after the episode ended. Accepts an Idempotency-Key.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(StepRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(StepResponseSchema(), "What the step observed."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const episodeRoutes: readonly RouteEntry[] = [
  defineRoute(resetRoute, async (c) => {
    const value = await runOperation(c, "reset", c.req.valid("json"));
    return c.json(value, 200);
  }),

  defineRoute(stepRoute, async (c) => {
    const value = await runOperation(c, "step", c.req.valid("json"));
    return c.json(value, 200);
  })
];
