/** @module Creating a session, reading its status, and deleting it with all its storage. */

import { resolveTask, taskRefOf } from "../../environment/task";
import {
  CreateSessionRequestSchema,
  CreateSessionResponseSchema,
  DeleteSessionResponseSchema,
  ForkRequestSchema,
  ForkResponseSchema,
  SessionParamsSchema,
  SessionStatusSchema
} from "../../protocol";
import { IDEMPOTENCY_HEADER } from "../../session/operations";
import { checkInitialState } from "../../state/initial-state";
import { apiKeyHeaderAuth, createAuth } from "../auth";
import { jsonBody } from "../body";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { forkSession } from "../fork-driver";
import { runOperation, sessionStub, startSession } from "../gateway";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest,
  MUTATION_ERRORS,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";
import { wsUrl } from "../ws-url";

export const createSessionRoute = route(
  {
    method: "post",
    path: "/v1/sessions",
    tags: ["sessions"],
    summary: "Create a session of a registered environment",
    description:
      "Needs an API key when ROOST_API_KEYS is set. The task is validated against the environment's task schema (or picked from its dataset by task_index); the answer's token admits to this session's routes.",
    security: CREATE_SECURITY,
    middleware: [createAuth, jsonBody] as const
  },
  {
    request: () => ({ body: jsonRequest(CreateSessionRequestSchema()) }),
    responses: () => ({
      201: jsonContent(CreateSessionResponseSchema(), "The new session."),
      ...errors(400, 401, 403, 404, 413, 415, 500, 503)
    })
  }
);

export const sessionStatusRoute = route(
  {
    method: "get",
    path: "/v1/sessions/{id}",
    tags: ["sessions"],
    summary: "A session's status",
    security: SESSION_SECURITY
  },
  {
    request: () => ({ params: SessionParamsSchema() }),
    responses: () => ({
      200: jsonContent(SessionStatusSchema(), "Where the session stands."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const deleteSessionRoute = route(
  {
    method: "delete",
    path: "/v1/sessions/{id}",
    tags: ["sessions"],
    summary: "Delete a session and all its storage",
    description: "Later requests with its token get 404.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({ params: SessionParamsSchema() }),
    responses: () => ({
      200: jsonContent(DeleteSessionResponseSchema(), "The session is gone."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const forkSessionRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/fork",
    tags: ["sessions"],
    summary: "Copy the session",
    description:
      "Makes `count` new sessions (1 to 64), each identical to this one after its last committed step (store with its counters, hidden store, state, transcript, task, episode, steps, reward and return, done, truncated, tree data) and independent from then on, each with its own token. A tree run is not copied. The copies appear only when all are complete; a failed fork leaves none. This session keeps serving meanwhile. Forking makes sessions: when ROOST_API_KEYS is set it also needs an API key (X-API-Key, or as the bearer credential). Accepts an Idempotency-Key.",
    security: SESSION_SECURITY,
    middleware: [apiKeyHeaderAuth, jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(ForkRequestSchema())
    }),
    responses: () => ({
      201: jsonContent(ForkResponseSchema(), "The copies."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const sessionRoutes: readonly RouteEntry[] = [
  defineRoute(createSessionRoute, async (c) => {
    const body = c.req.valid("json");
    const environment = c.get("registry").get(body.environment);
    const task = resolveTask(environment, body);
    // Checked here, as a write would be, so a bad one creates nothing.
    if (body.state !== undefined) {
      checkInitialState(environment.state, body.state, {
        maxValueBytes: c.get("limits").stateValueBytes
      });
    }
    const { sessionId, token } = await startSession(c, {
      environment: environment.name,
      task,
      ...(body.task_index === undefined ? {} : { taskRef: taskRefOf(body)! }),
      ...(body.state === undefined ? {} : { state: body.state }),
      ...(body.jurisdiction ? { jurisdiction: body.jurisdiction } : {}),
      ...(body.location_hint ? { locationHint: body.location_hint } : {})
    });
    return c.json(
      {
        session_id: sessionId,
        token,
        environment: environment.name,
        ws_url: wsUrl(c.req.url, sessionId)
      },
      201
    );
  }),

  defineRoute(sessionStatusRoute, async (c) =>
    c.json(await runOperation(c, "status", {}), 200)
  ),

  defineRoute(deleteSessionRoute, async (c) => {
    await runOperation(c, "destroy", {});
    return c.json(
      { session_id: c.get("sessionId"), deleted: true as const },
      200
    );
  }),

  defineRoute(forkSessionRoute, async (c) => {
    const { count, step } = c.req.valid("json");
    const forked = await forkSession(
      c.env,
      sessionStub(c.env.SESSIONS, c.get("durableId")),
      c.get("durableId"),
      count,
      c.req.url,
      c.get("grant"),
      c.req.header(IDEMPOTENCY_HEADER),
      undefined,
      step
    );
    return c.json(forked, 201);
  })
];
