/**
 * @module OpenEnv's task API under each OpenEnv base: `GET
 * /list_environments`, `GET /{env_name}/splits`, and `POST
 * /{env_name}/tasks`, `/num_tasks`, `/task` and `/task_range`, with the
 * bodies, split descriptors and statuses of OpenEnv's HTTP server
 * (`http_server.py`, ORS-compatible): 404 for another env_name, 400 for an
 * index out of range, 501 for what cannot be answered (listing a
 * generated split, which has no end). A task is picked with `reset`
 * `{"split", "index"}` (HTTP and WebSocket; frames.ts).
 *
 * Tasks are answered as stubs, `{id, index, split}`, never their content:
 * a Roost task may hold its answer (the calculator's does), and the
 * server resolves the task itself at reset. The environment's own dataset
 * is the split "default" (frames.ts).
 */

import type { Context } from "hono";
import * as z from "zod";
import type { Dataset } from "../../environment/dataset";
import type { Environment } from "../../environment/define-environment";
import { RoostError } from "../../errors";
import { createAuth } from "../../http/auth";
import { defineRoute, type RouteEntry, route } from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../../http/route-kit";
import { lazy } from "../../lazy";
import { admitRequest, BASES, type Base, type Params } from "./bases";
import { DEFAULT_SPLIT, roostSplit } from "./frames";

/** Stubs `tasks` lists at most; a larger split is read with `task_range`. */
const LIST_MAX = 100_000;
/** Stubs one `task_range` of a generated split answers at most. */
const RANGE_MAX = 10_000;

const SplitName = lazy(() => z.string().min(1).max(256));
// OpenEnv's request models forbid extra fields (BaseMessage, extra="forbid").
const SplitRequest = lazy(() => z.strictObject({ split: SplitName() }));
const TaskRequest = lazy(() =>
  z.strictObject({ split: SplitName(), index: z.number().int() })
);
const RangeRequest = lazy(() =>
  z.strictObject({
    split: SplitName(),
    start: z.number().int().nullable().optional(),
    stop: z.number().int().nullable().optional()
  })
);
const TaskStub = lazy(() =>
  z
    .object({ id: z.string(), index: z.number().int(), split: z.string() })
    .meta({ id: "OpenEnvTaskSpec" })
);

/** The open base takes an API key when ROOST_API_KEYS is set; the others carry their credential in the path. */
const guard = (base: Base) =>
  base.prefix.endsWith("/openenv")
    ? { security: CREATE_SECURITY, middleware: [createAuth] }
    : {};

const envParams = (base: Base) =>
  lazy(() => base.params().extend({ env_name: z.string().min(1).max(256) }));

const listEnvironmentsRoute = (base: Base) =>
  route(
    {
      method: "get",
      path: `${base.prefix}/list_environments`,
      tags: ["openenv"],
      summary: "OpenEnv task API: the environment's name",
      description: "[env_name]: the one environment this base serves.",
      ...guard(base)
    },
    {
      request: () => ({ params: base.params() }),
      responses: () => ({
        200: jsonContent(z.array(z.string()), "Its name."),
        ...errors(401, 403, 404)
      })
    }
  );

const splitsRoute = (base: Base) =>
  route(
    {
      method: "get",
      path: `${base.prefix}/{env_name}/splits`,
      tags: ["openenv"],
      summary: "OpenEnv task API: the dataset splits",
      description: `Each as {name, type}, type being the name for train, validation and test and "validation" otherwise (OpenEnv's normalisation). The environment's own dataset is "${DEFAULT_SPLIT}". 501 for an environment without any dataset.`,
      ...guard(base)
    },
    {
      request: () => ({ params: envParams(base)() }),
      responses: () => ({
        200: jsonContent(
          z.array(z.object({ name: z.string(), type: z.string() })),
          "The splits."
        ),
        ...errors(401, 403, 404, 501)
      })
    }
  );

const postRoute = <S extends z.ZodType, R extends z.ZodType>(
  base: Base,
  path: string,
  summary: string,
  description: string,
  body: () => S,
  answer: () => R
) =>
  route(
    {
      method: "post",
      path: `${base.prefix}/{env_name}/${path}`,
      tags: ["openenv"],
      summary,
      description,
      ...guard(base)
    },
    {
      request: () => ({
        params: envParams(base)(),
        body: jsonRequest(body())
      }),
      responses: () => ({
        200: jsonContent(answer(), "The answer."),
        ...errors(400, 401, 403, 404, 413, 415, 501)
      })
    }
  );

const tasksRoute = (base: Base) =>
  postRoute(
    base,
    "tasks",
    "OpenEnv task API: every task of a split",
    `{tasks: [{id, index, split}], env_name}, at most ${LIST_MAX} (use task_range beyond); 501 for a generated split.`,
    SplitRequest,
    () => z.object({ tasks: z.array(TaskStub()), env_name: z.string() })
  );
const numTasksRoute = (base: Base) =>
  postRoute(
    base,
    "num_tasks",
    "OpenEnv task API: the size of a split",
    "{num_tasks}; 501 for a generated split, which has no end.",
    SplitRequest,
    () => z.object({ num_tasks: z.number().int() })
  );
const taskRoute = (base: Base) =>
  postRoute(
    base,
    "task",
    "OpenEnv task API: one task",
    "{task: {id, index, split}}; 400 for an index out of range. reset {split, index} plays it.",
    TaskRequest,
    () => z.object({ task: TaskStub() })
  );
const taskRangeRoute = (base: Base) =>
  postRoute(
    base,
    "task_range",
    "OpenEnv task API: a slice of a split",
    `{tasks}: tasks[start:stop] with Python's slice rules (negative and null bounds); of a generated split only 0 ≤ start ≤ stop, at most ${RANGE_MAX}, else 501.`,
    RangeRequest,
    () => z.object({ tasks: z.array(TaskStub()) })
  );

/** The environment, admitted, if `env_name` names it (OpenEnv compares without case). */
const environmentOf = async (c: Context<AppEnv>): Promise<Environment> => {
  const params = c.req.param() as Params & { env_name?: string };
  const { environment } = await admitRequest(c, params);
  if (
    params.env_name !== undefined &&
    params.env_name.toLowerCase() !== environment.name.toLowerCase()
  )
    throw new RoostError(
      "not_found",
      `unknown environment '${params.env_name}': this base serves ${environment.name}.`
    );
  return environment;
};

/** The OpenEnv split names of `env`: its own dataset as "default", then its splits. */
const splitNames = (environment: Environment): string[] => {
  const named = Object.keys(environment.splits ?? {});
  return environment.dataset !== undefined && !named.includes(DEFAULT_SPLIT)
    ? [DEFAULT_SPLIT, ...named]
    : named;
};

const datasetOf = (
  environment: Environment,
  name: string
): Dataset<unknown> => {
  const split = roostSplit(environment, name);
  const found =
    split === undefined
      ? environment.dataset
      : Object.hasOwn(environment.splits ?? {}, split)
        ? environment.splits?.[split]
        : undefined;
  if (found === undefined)
    throw new RoostError(
      "not_found",
      `Environment ${environment.name} has no split "${name}"; its splits: ${splitNames(environment).join(", ") || "none"}.`,
      { field: "split", splits: splitNames(environment) }
    );
  return found;
};

const endless = (what: string): RoostError =>
  new RoostError(
    "not_implemented",
    `${what} is not supported for a generated split: it has no end. Name indexes with task or task_range.`
  );

const stub = (split: string, index: number) => ({
  id: `${split}-${index}`,
  index,
  split
});

/** Python's `range(n)[start:stop]` bounds. */
const sliceBounds = (
  n: number,
  start: number | null | undefined,
  stop: number | null | undefined
): [number, number] => {
  const clamp = (v: number) => Math.min(n, Math.max(0, v < 0 ? n + v : v));
  return [start == null ? 0 : clamp(start), stop == null ? n : clamp(stop)];
};

const range = (split: string, from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) =>
    stub(split, from + i)
  );

export const openEnvTaskRoutes: readonly RouteEntry[] = BASES.flatMap(
  (base) => [
    defineRoute(listEnvironmentsRoute(base), async (c) =>
      c.json([(await environmentOf(c)).name], 200)
    ),
    defineRoute(splitsRoute(base), async (c) => {
      const env = await environmentOf(c);
      const names = splitNames(env);
      if (names.length === 0)
        throw new RoostError(
          "not_implemented",
          `list_splits is not supported for this environment: ${env.name} has no dataset.`
        );
      return c.json(
        names.map((name) => ({
          name,
          type: ["train", "validation", "test"].includes(name)
            ? name
            : "validation"
        })),
        200
      );
    }),
    defineRoute(tasksRoute(base), async (c) => {
      const env = await environmentOf(c);
      const { split } = c.req.valid("json");
      const size = datasetOf(env, split).size;
      if (size === undefined) throw endless("list_tasks");
      if (size > LIST_MAX)
        throw new RoostError(
          "not_implemented",
          `list_tasks answers at most ${LIST_MAX} tasks; split "${split}" has ${size}: read it with task_range.`
        );
      return c.json({ tasks: range(split, 0, size), env_name: env.name }, 200);
    }),
    defineRoute(numTasksRoute(base), async (c) => {
      const env = await environmentOf(c);
      const { split } = c.req.valid("json");
      const size = datasetOf(env, split).size;
      if (size === undefined) throw endless("num_tasks");
      return c.json({ num_tasks: size }, 200);
    }),
    defineRoute(taskRoute(base), async (c) => {
      const env = await environmentOf(c);
      const { split, index } = c.req.valid("json");
      const size = datasetOf(env, split).size;
      if (index < 0 || (size !== undefined && index >= size))
        throw new RoostError(
          "invalid_request",
          `Invalid task index ${index}: split "${split}" has ${size ?? "endless"} tasks.`,
          { field: "index", ...(size === undefined ? {} : { size }) }
        );
      return c.json({ task: stub(split, index) }, 200);
    }),
    defineRoute(taskRangeRoute(base), async (c) => {
      const env = await environmentOf(c);
      const { split, start, stop } = c.req.valid("json");
      const size = datasetOf(env, split).size;
      if (size !== undefined) {
        const [from, to] = sliceBounds(size, start, stop);
        return c.json({ tasks: range(split, from, to) }, 200);
      }
      const from = start ?? 0;
      if (stop == null || from < 0 || stop < 0 || stop - from > RANGE_MAX)
        throw endless(
          `task_range other than 0 ≤ start ≤ stop with at most ${RANGE_MAX} tasks`
        );
      return c.json({ tasks: range(split, from, stop) }, 200);
    })
  ]
);
