/**
 * @module Aviary's dataset server for every environment, so ldp's
 * `TaskDatasetClient(server_url=".../v1/environments/<name>/aviary")` drives
 * Roost sessions unmodified. `env_id` is `<session_id>.<token>`: the same
 * session is on Roost's API, streams to its WebSocket and survives eviction.
 */

import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { resolveTask } from "../../environment/task";
import { RoostError } from "../../errors";
import {
  AviaryEnvRequestSchema,
  AviaryFlushRequestSchema,
  AviaryFlushResponseSchema,
  AviaryInfoResponseSchema,
  type AviaryResetResponse,
  AviaryResetResponseSchema,
  AviaryStartRequestSchema,
  AviaryStartResponseSchema,
  AviaryStepRequestSchema,
  type AviaryStepResponse,
  AviaryStepResponseSchema,
  EnvironmentParamsSchema,
  type ResetResponse,
  type StepResponse
} from "../../protocol";
import { apiKeyHeaderAuth } from "../auth";
import { toAction, toAviaryMessages, toAviaryTools } from "../aviary/translate";
import { defineRoute, type RouteEntry } from "../define-route";
import type { AppEnv } from "../env";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../route-kit";
import { provenSession, sessionCredential } from "../session-credential";
import { callSession } from "../stub";
import { startSession } from "./sessions";

/**
 * Roost's error body, with FastAPI's `detail` beside it as Aviary's server
 * answers: its tooling and logs look there.
 */
const withDetail = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status < 400) return;
  const body = (await c.res
    .clone()
    .json()
    .catch(() => undefined)) as { error?: { message?: unknown } } | undefined;
  if (typeof body?.error?.message !== "string") return;
  c.res = new Response(
    JSON.stringify({ detail: body.error.message, ...body }),
    {
      status: c.res.status,
      headers: c.res.headers
    }
  );
});

const base = "/v1/environments/{name}/aviary";
const shared = {
  tags: ["aviary"],
  security: CREATE_SECURITY,
  middleware: [withDetail, apiKeyHeaderAuth]
};
const post = <S extends Parameters<typeof jsonRequest>[0]>(
  path: string,
  body: S
) =>
  ({
    ...shared,
    method: "post",
    path: `${base}${path}`,
    request: { params: EnvironmentParamsSchema, body: jsonRequest(body) }
  }) as const;

export const aviaryInfoRoute = createRoute({
  ...shared,
  method: "get",
  path: `${base}/info`,
  summary: "Aviary: the dataset's size",
  description:
    "What TaskDatasetClient reads when it is built: dataset_size (null without a dataset). running_env_ids is always empty: Roost keeps no list of sessions.",
  request: { params: EnvironmentParamsSchema },
  responses: {
    200: jsonContent(AviaryInfoResponseSchema, "The environment."),
    ...errors(401, 403, 404, 503)
  }
});

export const aviaryStartRoute = createRoute({
  ...post("/start", AviaryStartRequestSchema),
  summary: "Aviary: start an environment (a Roost session)",
  description:
    "Creates a session with the task at task_idx of the dataset, the task task_kwargs gives, or (null) the environment's default task. env_id is <session_id>.<token>.",
  responses: {
    200: jsonContent(AviaryStartResponseSchema, "The new environment."),
    ...errors(400, 401, 403, 404, 413, 415, 503)
  }
});

export const aviaryResetRoute = createRoute({
  ...post("/reset", AviaryEnvRequestSchema),
  summary: "Aviary: reset",
  description: "Resets the session: [messages, tools] in Aviary's shapes.",
  responses: {
    200: jsonContent(AviaryResetResponseSchema, "[messages, tools]"),
    ...errors(400, 401, 403, 404, 413, 415, 429, 503)
  }
});

export const aviaryStepRoute = createRoute({
  ...post("/step", AviaryStepRequestSchema),
  summary: "Aviary: step",
  description:
    "Runs the action's tool calls (a ToolRequestMessage as Aviary dumps it, arguments as a JSON string): [messages, reward, done, truncated].",
  responses: {
    200: jsonContent(
      AviaryStepResponseSchema,
      "[messages, reward, done, truncated]"
    ),
    ...errors(400, 401, 403, 404, 409, 413, 415, 429, 503)
  }
});

export const aviaryCloseRoute = createRoute({
  ...post("/close", AviaryEnvRequestSchema),
  summary: "Aviary: close (deletes the session)",
  responses: {
    200: jsonContent(AviaryEnvRequestSchema, "Closed."),
    ...errors(400, 401, 403, 404, 413, 415, 503)
  }
});

export const aviaryFlushRoute = createRoute({
  ...post("/close_old_envs", AviaryFlushRequestSchema),
  summary: "Aviary: close idle environments (closes none)",
  description:
    "Answers an empty list: Roost keeps no list of sessions to scan; each session deletes itself after its idle TTL instead.",
  responses: {
    200: jsonContent(AviaryFlushResponseSchema, "What was closed."),
    ...errors(400, 401, 403, 404, 413, 415, 503)
  }
});

/** Aviary's server answers an unknown env_id with 404, and so does Roost, for one it cannot prove too. */
const notFound = (envId: string) =>
  new RoostError("not_found", `Environment ${envId} not found.`);

/** Runs `op` on the session `env_id` proves; a session gone or never proven is 404 alike. */
const onSession = async <T>(
  c: Context<AppEnv>,
  envId: string,
  call: Parameters<typeof callSession<T>>[2],
  retry: boolean
): Promise<T> => {
  const proven = await provenSession(c, envId);
  if (proven === undefined) throw notFound(envId);
  try {
    return await callSession(c.env.SESSIONS, proven.durableId, call, { retry });
  } catch (error) {
    if (error instanceof RoostError && error.code === "not_found")
      throw notFound(envId);
    throw error;
  }
};

export const aviaryRoutes: readonly RouteEntry[] = [
  defineRoute(aviaryInfoRoute, (c) => {
    const env = c.get("registry").get(c.req.valid("param").name);
    return c.json(
      {
        dataset_size: env.dataset?.size ?? null,
        running_env_ids: [],
        environment: env.name,
        description: env.description
      },
      200
    );
  }),
  defineRoute(aviaryStartRoute, async (c) => {
    const env = c.get("registry").get(c.req.valid("param").name);
    const { task_idx, task_kwargs } = c.req.valid("json");
    const task = resolveTask(
      env,
      task_kwargs != null
        ? { task: task_kwargs }
        : task_idx != null
          ? { task_index: task_idx }
          : {}
    );
    const started = await startSession(c, { environment: env.name, task });
    // Every reset() of Aviary's client starts a new environment and never
    // closes the last: one that is never reset goes after the short
    // probation rather than the full idle TTL. Best effort, like MCP's.
    await callSession(
      c.env.SESSIONS,
      started.durableId,
      (s) => s.op("expectUse", {}),
      { retry: true }
    ).catch(() => undefined);
    return c.json(
      {
        env_id: sessionCredential(started.sessionId, started.token)
      },
      200
    );
  }),
  defineRoute(aviaryResetRoute, async (c) => {
    const { env_id } = c.req.valid("json");
    const reset = await onSession<ResetResponse>(
      c,
      env_id,
      (s) => s.op("reset", {}) as never,
      false
    );
    const answer: AviaryResetResponse = [
      toAviaryMessages(reset.observations),
      toAviaryTools(reset.tools)
    ];
    return c.json(answer, 200);
  }),
  defineRoute(aviaryStepRoute, async (c) => {
    const { env_id, action } = c.req.valid("json");
    const step = await onSession<StepResponse>(
      c,
      env_id,
      (s) => s.op("step", { action: toAction(action) }) as never,
      false
    );
    const answer: AviaryStepResponse = [
      toAviaryMessages(step.observations),
      step.reward,
      step.done,
      step.truncated
    ];
    return c.json(answer, 200);
  }),
  defineRoute(aviaryCloseRoute, async (c) => {
    const { env_id } = c.req.valid("json");
    await onSession(c, env_id, (s) => s.op("destroy", {}) as never, true);
    return c.json({ env_id }, 200);
  }),
  defineRoute(aviaryFlushRoute, (c) => c.json({ closed_env_ids: [] }, 200))
];
