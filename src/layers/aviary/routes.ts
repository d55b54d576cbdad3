/**
 * @module Aviary's dataset server for every environment, so ldp's
 * `TaskDatasetClient(server_url=".../v1/environments/<name>/aviary")` drives
 * Roost sessions unmodified, and `.../v1/environments/<name>/splits/<split>/aviary`
 * each named split. `env_id` is `<session_id>.<token>`: the same session is
 * on Roost's API, streams to its WebSocket and survives eviction.
 */

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { servedAgent, toolsOfAgent } from "../../environment/agents";
import type { Environment } from "../../environment/define-environment";
import {
  datasetOf,
  resolveTask,
  type TaskRef,
  taskRefOf
} from "../../environment/task";
import { RoostError } from "../../errors";
import { apiKeyHeaderAuth } from "../../http/auth";
import { defineRoute, type RouteEntry, route } from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import {
  gatewayTo,
  type SessionGateway,
  startSession
} from "../../http/gateway";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../../http/route-kit";
import {
  provenSession,
  sessionCredential
} from "../../http/session-credential";
import type { JsonObject } from "../../json";
import { lazy } from "../../lazy";
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
  NameSchema
} from "../../protocol";
import { viewOf } from "../../protocol/agents";
import {
  toAction,
  toAviaryMessages,
  toAviaryTools,
  withRewardComponents
} from "./translate";

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

/**
 * Aviary's six routes under `base`: the default dataset at
 * `/v1/environments/{name}/aviary`, a named split at
 * `/v1/environments/{name}/splits/{split}/aviary`. Aviary picks a split when
 * it builds a dataset (`make_dataset(split)`) and its TaskDatasetClient
 * talks to one server URL, so each split is a server URL of its own.
 */
const aviaryRouteSet = <
  P extends
    | ReturnType<typeof EnvironmentParamsSchema>
    | ReturnType<typeof SplitParamsSchema>
>(
  base: string,
  params: () => P,
  which: string
) => {
  const shared = {
    tags: ["aviary"],
    security: CREATE_SECURITY,
    middleware: [withDetail, apiKeyHeaderAuth]
  };
  const post = (path: string) =>
    ({ ...shared, method: "post", path: `${base}${path}` }) as const;
  return {
    info: route(
      {
        ...shared,
        method: "get",
        path: `${base}/info`,
        summary: `Aviary: the size of ${which}`,
        description:
          "What TaskDatasetClient reads when it is built: dataset_size (null without a dataset, or for a generated one: Aviary's infinite dataset). running_env_ids is always empty: Roost keeps no list of sessions."
      },
      {
        request: () => ({ params: params() }),
        responses: () => ({
          200: jsonContent(AviaryInfoResponseSchema(), "The environment."),
          ...errors(400, 401, 403, 404, 503)
        })
      }
    ),
    start: route(
      {
        ...post("/start"),
        summary: `Aviary: start an environment (a Roost session) from ${which}`,
        description:
          "Creates a session with the task at task_idx (the seed of a generated dataset), the task task_kwargs gives, or, for null: the environment's default task on the default dataset, a random task of a named split. env_id is <session_id>.<token>."
      },
      {
        request: () => ({
          params: params(),
          body: jsonRequest(AviaryStartRequestSchema())
        }),
        responses: () => ({
          200: jsonContent(AviaryStartResponseSchema(), "The new environment."),
          ...errors(400, 401, 403, 404, 413, 415, 503)
        })
      }
    ),
    reset: route(
      {
        ...post("/reset"),
        summary: "Aviary: reset",
        description:
          "Resets the session: [messages, tools] in Aviary's shapes; the tools are the episode's."
      },
      {
        request: () => ({
          params: params(),
          body: jsonRequest(AviaryEnvRequestSchema())
        }),
        responses: () => ({
          200: jsonContent(AviaryResetResponseSchema(), "[messages, tools]"),
          ...errors(400, 401, 403, 404, 413, 415, 429, 503)
        })
      }
    ),
    step: route(
      {
        ...post("/step"),
        summary: "Aviary: step",
        description:
          "Runs the action's tool calls (a ToolRequestMessage as Aviary dumps it, arguments as a JSON string): [messages, reward, done, truncated]. With rubrics, the last message's info carries reward_components."
      },
      {
        request: () => ({
          params: params(),
          body: jsonRequest(AviaryStepRequestSchema())
        }),
        responses: () => ({
          200: jsonContent(
            AviaryStepResponseSchema(),
            "[messages, reward, done, truncated]"
          ),
          ...errors(400, 401, 403, 404, 409, 413, 415, 429, 503)
        })
      }
    ),
    close: route(
      {
        ...post("/close"),
        summary: "Aviary: close (deletes the session)"
      },
      {
        request: () => ({
          params: params(),
          body: jsonRequest(AviaryEnvRequestSchema())
        }),
        responses: () => ({
          200: jsonContent(AviaryEnvRequestSchema(), "Closed."),
          ...errors(400, 401, 403, 404, 413, 415, 503)
        })
      }
    ),
    flush: route(
      {
        ...post("/close_old_envs"),
        summary: "Aviary: close idle environments (closes none)",
        description:
          "Answers an empty list: Roost keeps no list of sessions to scan; each session deletes itself after its idle TTL instead."
      },
      {
        request: () => ({
          params: params(),
          body: jsonRequest(AviaryFlushRequestSchema())
        }),
        responses: () => ({
          200: jsonContent(AviaryFlushResponseSchema(), "What was closed."),
          ...errors(400, 401, 403, 404, 413, 415, 503)
        })
      }
    )
  };
};

/** A named split's Aviary server: the environment and the split. */
const SplitParamsSchema = lazy(() =>
  EnvironmentParamsSchema().extend({ split: NameSchema() })
);

const onDefault = aviaryRouteSet(
  "/v1/environments/{name}/aviary",
  EnvironmentParamsSchema,
  "the dataset"
);
const onSplit = aviaryRouteSet(
  "/v1/environments/{name}/splits/{split}/aviary",
  SplitParamsSchema,
  "a split"
);

export const aviaryInfoRoute = onDefault.info;
export const aviaryStartRoute = onDefault.start;
export const aviaryResetRoute = onDefault.reset;
export const aviaryStepRoute = onDefault.step;
export const aviaryCloseRoute = onDefault.close;
export const aviaryFlushRoute = onDefault.flush;

/** Aviary's server answers an unknown env_id with 404, and so does Roost, for one it cannot prove too. */
const notFound = (envId: string) =>
  new RoostError("not_found", `Environment ${envId} not found.`);

/**
 * The session `env_id` proves, whose refusals say "not found" as Aviary's
 * server does: a session gone or never proven is 404 alike.
 */
const envSession = async (
  c: Context<AppEnv>,
  envId: string
): Promise<SessionGateway> => {
  const proven = await provenSession(c, envId);
  if (proven === undefined) throw notFound(envId);
  const session = gatewayTo(c.env.SESSIONS, proven.durableId, proven.grant);
  return {
    ...session,
    op: (name, input, key) =>
      session.op(name, input, key).catch((error: unknown) => {
        if (error instanceof RoostError && error.code === "not_found")
          throw notFound(envId);
        throw error;
      })
  };
};

/** The split a route names, if any (the default dataset's routes name none). */
const splitOf = (c: Context<AppEnv>): string | undefined =>
  (c.req.param() as { split?: string }).split;

/** A random whole number below `n` (n ≤ 2^53). */
const randomBelow = (n: number): number => {
  const [hi, lo] = crypto.getRandomValues(new Uint32Array(2));
  return Math.floor(((hi! * 2 ** 32 + lo!) / 2 ** 64) * n);
};

/**
 * What Aviary's task_idx picks. Null is Aviary's get_new_env(): the
 * environment's default task on the default dataset (as before splits),
 * a random task of a named split, or a random seed of a generated one.
 */
const startTask = (
  environment: Environment,
  split: string | undefined,
  body: { task_idx?: number | null; task_kwargs?: JsonObject | null }
): { task: unknown; taskRef?: TaskRef } => {
  // A split's server exists only for a split the environment has.
  if (split !== undefined) datasetOf(environment, split);
  if (body.task_kwargs != null)
    return { task: resolveTask(environment, { task: body.task_kwargs }) };
  if (body.task_idx != null) return byIndex(environment, body.task_idx, split);
  if (split === undefined) return { task: resolveTask(environment, {}) };
  const size = datasetOf(environment, split).size;
  if (size === 0) {
    throw new RoostError(
      "invalid_request",
      `Split "${split}" of ${environment.name} is empty; there is no task to start.`,
      { field: "task_idx" }
    );
  }
  return byIndex(
    environment,
    randomBelow(size ?? Number.MAX_SAFE_INTEGER),
    split
  );
};

/** A dataset task, with where it came from: its episodes count in the task statistics. */
const byIndex = (
  environment: Environment,
  index: number,
  split: string | undefined
): { task: unknown; taskRef: TaskRef } => {
  const request = {
    task_index: index,
    ...(split === undefined ? {} : { split })
  };
  return {
    task: resolveTask(environment, request),
    taskRef: taskRefOf(request)!
  };
};

/** Aviary's /info: the size of the dataset (or split), null when it has none or no end. */
const infoOf = (environment: Environment, split: string | undefined) => ({
  dataset_size:
    split === undefined
      ? (environment.dataset?.size ?? null)
      : (datasetOf(environment, split).size ?? null),
  running_env_ids: [],
  environment: environment.name,
  description: environment.description
});

const routesOf = (set: ReturnType<typeof aviaryRouteSet>): RouteEntry[] => [
  defineRoute(set.info, (c) => {
    const env = c.get("registry").get(c.req.valid("param").name);
    return c.json(infoOf(env, splitOf(c)), 200);
  }),
  defineRoute(set.start, async (c) => {
    const env = c.get("registry").get(c.req.valid("param").name);
    const started = await startSession(c, {
      environment: env.name,
      ...startTask(env, splitOf(c), c.req.valid("json"))
    });
    // Every reset() of Aviary's client starts a new environment and never
    // closes the last: one that is never reset goes after the short
    // probation rather than the full idle TTL. Best effort, like MCP's.
    await started.session.op("expectUse", {}).catch(() => undefined);
    return c.json(
      {
        env_id: sessionCredential(started.sessionId, started.token)
      },
      200
    );
  }),
  defineRoute(set.reset, async (c) => {
    const { env_id } = c.req.valid("json");
    const session = await envSession(c, env_id);
    const { observations, tools, turn } = await session.op("reset", {});
    // Aviary's client plays the one agent left to clients: its view, its tools.
    const { environment } = turn ? await session.op("status", {}) : {};
    const env = environment && c.get("registry").get(environment);
    const agent = env && servedAgent(env, undefined);
    const answer: AviaryResetResponse = [
      toAviaryMessages(agent ? viewOf(observations, agent) : observations),
      toAviaryTools(env ? toolsOfAgent(env, agent, tools) : tools)
    ];
    return c.json(answer, 200);
  }),
  defineRoute(set.step, async (c) => {
    const { env_id, action } = c.req.valid("json");
    const step = await (await envSession(c, env_id)).op("step", {
      action: toAction(action)
    });
    const answer: AviaryStepResponse = [
      withRewardComponents(
        toAviaryMessages(step.observations),
        step.reward_components
      ),
      // The acting agent's, in a multi-agent environment.
      step.agent === undefined ? step.reward : step.rewards![step.agent]!,
      step.done,
      step.truncated
    ];
    return c.json(answer, 200);
  }),
  defineRoute(set.close, async (c) => {
    const { env_id } = c.req.valid("json");
    await (await envSession(c, env_id)).op("destroy", {});
    return c.json({ env_id }, 200);
  }),
  defineRoute(set.flush, (c) => c.json({ closed_env_ids: [] }, 200))
];

export const aviaryRoutes: readonly RouteEntry[] = [
  ...routesOf(onDefault),
  ...routesOf(onSplit)
];
