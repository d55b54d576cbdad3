/** @module Decision-tree runs: start one (202), read it (optionally waiting), cancel it. */

import {
  RunCreatedSchema,
  RunParamsSchema,
  RunQuerySchema,
  RunRequestSchema,
  RunStatusSchema,
  SessionParamsSchema
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

const common = { tags: ["runs"], security: SESSION_SECURITY };

export const runStartRoute = route(
  {
    ...common,
    method: "post",
    path: "/v1/sessions/{id}/runs",
    summary: "Start a decision-tree run",
    description:
      "Queues a run of the environment's decision tree on `prompt` and answers 202 at once. Passes run in the session object, each committed alone; progress streams as tree.node, tree.decision, update, result and tree.completed frames. 409 while another run is going. `model` names a configured model; the deployment's default otherwise. Needs a reset session. Accepts an Idempotency-Key.",
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(RunRequestSchema())
    }),
    responses: () => ({
      202: jsonContent(RunCreatedSchema(), "The run was queued."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const runReadRoute = route(
  {
    ...common,
    method: "get",
    path: "/v1/sessions/{id}/runs/{run_id}",
    summary: "Read a run",
    description:
      "State, passes, final text, tasks completed and outcome. `?wait=N` waits up to N seconds for the run to finish first."
  },
  {
    request: () => ({ params: RunParamsSchema(), query: RunQuerySchema() }),
    responses: () => ({
      200: jsonContent(RunStatusSchema(), "The run."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const runCancelRoute = route(
  {
    ...common,
    method: "post",
    path: "/v1/sessions/{id}/runs/{run_id}/cancel",
    summary: "Cancel a run",
    description:
      "Sets the run's cancel flag; the run stops before its next pass (a pass under way finishes). Not queued behind the run."
  },
  {
    request: () => ({ params: RunParamsSchema() }),
    responses: () => ({
      200: jsonContent(RunStatusSchema(), "The run, cancel_requested set."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const runRoutes: readonly RouteEntry[] = [
  defineRoute(runStartRoute, async (c) => {
    const value = await runOperation(c, "startRun", c.req.valid("json"));
    return c.json(value, 202);
  }),
  defineRoute(runReadRoute, async (c) => {
    const { run_id } = c.req.valid("param");
    const { wait } = c.req.valid("query");
    const value = await runOperation(c, "readRun", { run_id, wait });
    return c.json(value, 200);
  }),
  defineRoute(runCancelRoute, async (c) => {
    const { run_id } = c.req.valid("param");
    // Setting a flag twice is harmless, so a retry is safe.
    const value = await runOperation(c, "cancelRun", { run_id });
    return c.json(value, 200);
  })
];
