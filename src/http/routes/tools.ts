/** @module The episode's tools: listed, and one called directly with the session's context, not as a step. */

import {
  SessionParamsSchema,
  ToolInvocationRequestSchema,
  ToolInvocationResponseSchema,
  ToolParamsSchema
} from "../../protocol";
import { tools } from "../../session/operations/reset-step-call";
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

export const toolListRoute = route(
  {
    method: "get",
    path: "/v1/sessions/{id}/tools",
    tags: ["tools"],
    summary: "The episode's tools",
    description:
      "The tools the running episode offers, in OpenAI's format: all of the environment's, or the subset its reset chose; what reset answered, for a client that did not keep it.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({ params: SessionParamsSchema() }),
    responses: () => ({
      200: jsonContent(tools.output!(), "The tools."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const toolCallRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/tools/{tool}",
    tags: ["tools"],
    summary: "Call one tool directly",
    description:
      "Runs the tool with the session's context: it may change the store, hidden store and state, but it is not a step (no transcript entry, no reward). Needs a reset session. A failing tool is an is_error answer, not an HTTP error. Accepts an Idempotency-Key.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: ToolParamsSchema(),
      body: jsonRequest(ToolInvocationRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(
        ToolInvocationResponseSchema(),
        "What the call returned and stored."
      ),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const toolRoutes: readonly RouteEntry[] = [
  defineRoute(toolListRoute, async (c) =>
    c.json(await runOperation(c, "tools", {}), 200)
  ),
  defineRoute(toolCallRoute, async (c) => {
    const { tool } = c.req.valid("param");
    const body = c.req.valid("json");
    const value = await runOperation(c, "call", {
      tool,
      arguments: body.arguments
    });
    return c.json(value, 200);
  })
];
