/**
 * @module A server's environment as the checks' `Target`: sessions made
 * over HTTP with the client, read back through the GET routes (the hidden
 * store with a grade token), forked with POST …/fork, deleted at the end.
 */

import { RoostClientError } from "../client/client-error";
import type { RoostClient } from "../client/http";
import type { RoostSession } from "../client/session-client";
import type { Environment } from "../environment/define-environment";
import { resolveTask } from "../environment/task";
import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { EnvironmentInfo } from "../protocol";
import type {
  OracleConfig,
  Target,
  TaskChoice,
  ValidatedSession
} from "./target";

/** Every page of the hidden store, read with a grade token (no other credential may). */
export const hiddenOf = async (
  client: RoostClient,
  session: RoostSession
): Promise<Record<string, JsonValue>> => {
  const { token } = await session.mintToken({ scope: "grade", ttl: 600 });
  const grader = client.session(session.id, token);
  const hidden: Record<string, JsonValue> = {};
  let cursor: string | undefined;
  do {
    const page = await grader.hidden(cursor === undefined ? {} : { cursor });
    Object.assign(hidden, page.hidden);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return hidden;
};

/**
 * Retries a mutation the session's rate limit refused (nothing ran), after
 * the wait the refusal names: the reset check alone makes hundreds in a
 * row, over the limit a server sets on one session.
 */
const paced = async <T>(call: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (
        !(error instanceof RoostClientError) ||
        error.code !== "rate_limited" ||
        attempt === 5
      )
        throw error;
      const wait = (error.details as { retry_after_seconds?: number })
        ?.retry_after_seconds;
      await new Promise((r) => setTimeout(r, 1000 * Math.min(wait ?? 1, 10)));
    }
  }
};

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

/** One server session as the checks drive it; `remote` is the client's handle, for the server-only checks. */
export const httpSession = (
  client: RoostClient,
  remote: RoostSession,
  resolve: (ref: TaskChoice) => unknown,
  made: RoostSession[]
): ValidatedSession & { remote: RoostSession } => {
  let task: unknown;
  return {
    remote,
    reset: async (ref) => {
      const first = await paced(() =>
        remote.reset({
          ...(ref.task_index === undefined
            ? {}
            : { taskIndex: ref.task_index }),
          ...(ref.split === undefined ? {} : { split: ref.split })
        })
      );
      task = resolve(ref);
      return {
        observations: first.observations as Message[],
        tools: first.tools
      };
    },
    step: async (action) => {
      const out = await paced(() => remote.step(action));
      return {
        observations: out.observations as Message[],
        reward: out.reward,
        done: out.done || out.truncated
      };
    },
    snapshot: async () => ({
      store: (await collect(remote.items.store())) as unknown as JsonValue,
      hidden: await hiddenOf(client, remote),
      state: (await remote.state()) as JsonValue,
      transcript: (await collect(remote.items.messages())) as JsonValue
    }),
    task: () => task,
    fork: async () => {
      const [copy] = await paced(() => remote.fork(1));
      made.push(copy!);
      const forked = httpSession(client, copy!, resolve, made);
      // The copy plays the same task: the oracle reads it from here.
      return { ...forked, task: () => task };
    }
  };
};

/**
 * `info` as the server lists it; `env` the same environment's code when
 * its module was given, which supplies the oracle (and the tasks it
 * reads) and the tools' own input schemas.
 */
export const httpTarget = (
  client: RoostClient,
  info: EnvironmentInfo,
  environment?: Environment
): Target & { sessions: RoostSession[] } => {
  const made: RoostSession[] = [];
  const summary = info.validation;
  const config = environment?.validation;
  const oracle: OracleConfig =
    environment !== undefined
      ? {
          ...(config?.oracle === undefined
            ? {}
            : { oracle: config.oracle.bind(config) }),
          ...(config?.noOracle === undefined
            ? {}
            : { noOracle: config.noOracle }),
          maxReturn: config?.maxReturn ?? 1
        }
      : {
          ...(summary?.no_oracle === undefined
            ? {}
            : { noOracle: summary.no_oracle }),
          ...(summary?.oracle ? { oracleElsewhere: true } : {}),
          maxReturn: summary?.max_return ?? 1
        };
  // Without the module the task is the server's alone; nothing reads it then.
  const resolve = (ref: TaskChoice) =>
    environment === undefined ? undefined : resolveTask(environment, ref);
  return {
    name: info.name,
    where: client.baseUrl,
    sessions: made,
    open: async () => {
      const remote = await client.createSession({ environment: info.name });
      made.push(remote);
      return httpSession(client, remote, resolve, made);
    },
    toolSchemas: info.tools,
    ...(environment === undefined
      ? {}
      : { toolInput: (name: string) => environment.tools.get(name)?.input }),
    ...(info.dataset_size !== undefined
      ? { dataset: { size: info.dataset_size } }
      : info.dataset_generated
        ? { dataset: {} }
        : {}),
    splits: (info.splits ?? []).map((s) =>
      s.size === undefined ? { name: s.name } : { name: s.name, size: s.size }
    ),
    maxSteps: info.max_steps ?? summary?.max_steps ?? 50,
    oracle,
    refusal: (error) => {
      if (!(error instanceof RoostClientError))
        return `the step threw ${String(error)}, not a refusal`;
      if (error.status !== 409)
        return `the step was answered ${error.status} ${error.code}, not 409`;
      // The client reads a body that is not {error:{code,message}} as invalid_response.
      return error.code === "invalid_response"
        ? "the 409 had no {error:{code,message}} body"
        : undefined;
    },
    finish: async () => {
      const all = made.splice(0);
      await Promise.all(all.map((s) => s.delete().catch(() => undefined)));
    }
  };
};
