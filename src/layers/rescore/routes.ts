/** @module `POST /v1/sessions/:id/rescore`: a registered rubric applied again to the retained episodes. */

import { jsonBody } from "../../http/body";
import { defineRoute, type RouteEntry, route } from "../../http/define-route";
import { runOperation } from "../../http/gateway";
import {
  BODY_ERRORS,
  errors,
  jsonContent,
  jsonRequest,
  SESSION_SECURITY
} from "../../http/route-kit";
import {
  RescoreRequestSchema,
  RescoreResponseSchema,
  SessionParamsSchema
} from "../../protocol";

export const rescoreRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/rescore",
    tags: ["episodes"],
    summary: "Score the retained episodes again (grade only)",
    description:
      "Applies a rubric the environment registered (by name; GET /v1/environments lists them, `rubric` and `episodeRubric` being its own) to every episode whose reset the event log still holds, replaying each step's task, state, transcript, hidden store and environment store as they were. Answers per episode and step what was answered then and what the rubric scores now; writes nothing. 404 with the names in details.rubrics for a name the environment does not register. At most `limit` episodes (20, up to 100) and about 8 MiB of log a page; next_cursor continues.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(RescoreRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(
        RescoreResponseSchema(),
        "Each retained episode's steps, as answered and as scored now."
      ),
      ...errors(...BODY_ERRORS)
    })
  }
);

export const rescoreRoutes: readonly RouteEntry[] = [
  defineRoute(rescoreRoute, async (c) =>
    c.json(await runOperation(c, "rescore", c.req.valid("json")), 200)
  )
];
