/**
 * @module The server's task statistics of an environment (object.ts):
 * `GET` reads them a page at a time, `DELETE` resets them, and
 * `POST …/sample` draws dataset indexes from them with the curriculum's
 * weights, so a trainer in any language samples as the TypeScript client
 * does. All three need an API key when ROOST_API_KEYS is set: which tasks
 * a model fails is the deployment's business, like its sessions.
 */

import type { Context } from "hono";
import type { Environment } from "../../environment/define-environment";
import { datasetOf, successThresholdOf } from "../../environment/task";
import { RoostError } from "../../errors";
import { createAuth } from "../../http/auth";
import { jsonBody } from "../../http/body";
import { defineRoute, type RouteEntry, route } from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../../http/route-kit";
import { EnvironmentParamsSchema } from "../../protocol";
import {
  TaskSampleRequestSchema,
  TaskSampleResponseSchema,
  TaskStatsDeleteQuerySchema,
  TaskStatsDeleteResponseSchema,
  TaskStatsQuerySchema,
  TaskStatsResponseSchema
} from "../../protocol/http-task-stats";
import { describeRow, type SplitFilter, taskStatsObject } from "./statistics";

const PATH = "/v1/environments/{name}/task-stats";

/** Seeds a generated split's draws come from when the request gives no task_count (as the client's sampler). */
const GENERATED_SEEDS = 1000;

export const taskStatsRoute = route(
  {
    method: "get",
    path: PATH,
    tags: ["task statistics"],
    summary: "Per-task outcome statistics",
    description:
      "Every ended episode of a session playing a dataset task (created or reset with task_index, any split, whatever the protocol) counts once for its task: attempts, successes (a return at or above the environment's success threshold), mean return, and P(signal) for group_size. By split then index, `limit` a page (100, up to 1000); next_cursor continues. 404 for an unknown environment or split, or an environment that opted out (taskStats: false).",
    security: CREATE_SECURITY,
    middleware: [createAuth] as const
  },
  {
    request: () => ({
      params: EnvironmentParamsSchema(),
      query: TaskStatsQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(TaskStatsResponseSchema(), "A page of records."),
      ...errors(400, 401, 403, 404, 503)
    })
  }
);

export const taskStatsResetRoute = route(
  {
    method: "delete",
    path: PATH,
    tags: ["task statistics"],
    summary: "Reset the task statistics",
    description:
      "Removes the records of one split (?split=) or of all; the curriculum then treats those tasks as never tried. Sessions keep counting from zero.",
    security: CREATE_SECURITY,
    middleware: [createAuth] as const
  },
  {
    request: () => ({
      params: EnvironmentParamsSchema(),
      query: TaskStatsDeleteQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(TaskStatsDeleteResponseSchema(), "What was removed."),
      ...errors(400, 401, 403, 404, 503)
    })
  }
);

export const taskSampleRoute = route(
  {
    method: "post",
    path: `${PATH}/sample`,
    tags: ["task statistics"],
    summary: "Draw dataset indexes by the curriculum",
    description:
      "count indexes of the split (the own dataset without one), each drawn in proportion to P(signal) = 1 − p^G − (1 − p)^G for its pass rate estimate p = (successes + 1) / (attempts + 2) and G = group_size (1 is weighted as 2): the client's curriculum, on the server's statistics. Seeded by seed (answered, random when absent). Give each group of a GRPO run one drawn index.",
    security: CREATE_SECURITY,
    middleware: [createAuth, jsonBody] as const
  },
  {
    request: () => ({
      params: EnvironmentParamsSchema(),
      body: jsonRequest(TaskSampleRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(TaskSampleResponseSchema(), "The drawn indexes."),
      ...errors(400, 401, 403, 404, 413, 415, 503)
    })
  }
);

/** The environment, if it keeps statistics, and the split, if it has it: 404 otherwise. */
const target = (
  c: Context<AppEnv>,
  name: string,
  split: string | undefined
): Environment => {
  const env = c.get("registry").get(name);
  if (env.taskStats === false)
    throw new RoostError(
      "not_found",
      `Environment ${env.name} keeps no task statistics (it sets taskStats: false).`
    );
  if (split !== undefined && !Object.hasOwn(env.splits ?? {}, split)) {
    const splits = Object.keys(env.splits ?? {});
    throw new RoostError(
      "not_found",
      `Environment ${env.name} has no split "${split}"; its splits: ${splits.join(", ") || "none"}.`,
      { field: "split", splits }
    );
  }
  return env;
};

type Position = { split: string | null; index: number };

const encodeCursor = (p: Position): string =>
  btoa(JSON.stringify([p.split, p.index]));

const decodeCursor = (cursor: string): Position => {
  try {
    const [split, index] = JSON.parse(atob(cursor)) as unknown[];
    if (
      (split === null || typeof split === "string") &&
      Number.isSafeInteger(index)
    )
      return { split, index: index as number };
  } catch {
    // answered below
  }
  throw new RoostError(
    "invalid_request",
    "cursor is not a next_cursor this route answered.",
    { field: "cursor" }
  );
};

const filterOf = (split: string | undefined): SplitFilter =>
  split === undefined ? { all: true } : { all: false, split };

export const taskStatsRoutes: readonly RouteEntry[] = [
  defineRoute(taskStatsRoute, async (c) => {
    const { name } = c.req.valid("param");
    const query = c.req.valid("query");
    const env = target(c, name, query.split);
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = await taskStatsObject(c.env, env.name).readTaskStats(
      filterOf(query.split),
      after,
      query.limit
    );
    const last = page.rows.at(-1);
    return c.json(
      {
        environment: env.name,
        success_threshold: successThresholdOf(env),
        group_size: query.group_size,
        tasks: page.rows.map((row) => describeRow(row, query.group_size)),
        unconfirmed: page.unconfirmed,
        ...(page.more && last !== undefined
          ? { next_cursor: encodeCursor(last) }
          : {})
      },
      200
    );
  }),
  defineRoute(taskStatsResetRoute, async (c) => {
    const { name } = c.req.valid("param");
    const { split } = c.req.valid("query");
    const env = target(c, name, split);
    const removed = await taskStatsObject(c.env, env.name).resetTaskStats(
      filterOf(split)
    );
    return c.json(
      {
        environment: env.name,
        ...(split === undefined ? {} : { split }),
        removed
      },
      200
    );
  }),
  defineRoute(taskSampleRoute, async (c) => {
    const { name } = c.req.valid("param");
    const body = c.req.valid("json");
    const env = target(c, name, body.split);
    // The own dataset's absence is the request's mistake (400), as for task_index.
    const dataset = datasetOf(env, body.split);
    const size = dataset.size;
    if (size === 0)
      throw new RoostError(
        "invalid_request",
        `${body.split === undefined ? "The dataset" : `Split "${body.split}"`} of ${env.name} is empty: there is nothing to draw.`,
        { field: "split" }
      );
    const taskCount = body.task_count ?? size ?? GENERATED_SEEDS;
    if (size !== undefined && taskCount > size)
      throw new RoostError(
        "invalid_request",
        `task_count ${taskCount} is more than the ${size} tasks there are.`,
        { field: "task_count", size }
      );
    const seed = body.seed ?? crypto.getRandomValues(new Uint32Array(1))[0]!;
    const indices = await taskStatsObject(c.env, env.name).sampleTasks({
      split: body.split ?? null,
      taskCount,
      groupSize: body.group_size,
      count: body.count,
      seed
    });
    return c.json(
      {
        task_indices: indices,
        split: body.split ?? null,
        group_size: body.group_size,
        task_count: taskCount,
        seed
      },
      200
    );
  })
];
