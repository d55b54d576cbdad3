/**
 * @module `validateEnvironment`: the checks `roost-edge validate` runs over
 * local sessions (no server), before anyone trains on an environment.
 */

import type { Environment } from "../environment/define-environment";
import type { OraclePolicy } from "../environment/validation";
import { ActionSchema } from "../protocol";
import { createLocalSession } from "../runner/local-session";
import { determinism, isolation, leakage } from "./checks";
import { finiteRewards, resets, stepAfterDone, toolSchemas } from "./contract";
import { playTogether, type TaskRef } from "./episode";
import { oracleAndFloor } from "./oracle";
import { doNothing, scripted } from "./policies";
import type { CheckRow, ValidationReport } from "./report";

export type { Environment } from "../environment/define-environment";
export { type CheckRow, formatReport, type ValidationReport } from "./report";

export interface ValidateOptions {
  /** Tasks per split the oracle and floors play (default 5). */
  tasks?: number;
  /** Tasks per split the reset check resets (default 200; all of a smaller split). */
  resets?: number;
  /** Indices tried of a generated split, which has no end (default 20). */
  generated?: number;
}

/** `count` indices spread over `size` (all of them when it has no more), the last included. */
const spread = (size: number, count: number): number[] => {
  if (size <= count) return [...Array(size).keys()];
  const step = size / count;
  const picked = [...Array(count - 1).keys()].map((i) => Math.floor(i * step));
  return [...picked, size - 1];
};

/** The tasks to play: indices of the default dataset and of each split, or the default task. */
const sample = (
  env: Environment,
  count: number,
  unbounded: number
): TaskRef[] => {
  const refs: TaskRef[] = [];
  const add = (size: number | undefined, split?: string) => {
    for (const task_index of spread(size ?? unbounded, count))
      refs.push(split === undefined ? { task_index } : { task_index, split });
  };
  if (env.dataset !== undefined) add(env.dataset.size);
  for (const [name, split] of Object.entries(env.splits ?? {}))
    add(split.size, name);
  return refs.length === 0 ? [{}] : refs;
};

/**
 * Runs every check and returns the report; nothing is thrown for a check
 * that fails. What a local run cannot see (OpenEnv frames, MCP listings,
 * `/frame`, a session's SQLite) needs a server: see docs/02-environments.md.
 *
 * @example
 * const report = await validateEnvironment(calculator);
 * if (!report.ok) console.log(formatReport(report));
 */
export const validateEnvironment = async (
  env: Environment,
  options: ValidateOptions = {}
): Promise<ValidationReport> => {
  const maxSteps = env.maxSteps ?? env.validation?.maxSteps ?? 50;
  const played = sample(env, options.tasks ?? 5, options.generated ?? 20);
  // Determinism and leakage look at a few tasks; the oracle at the sample.
  const few = played.slice(0, 3);
  const rows: CheckRow[] = [];
  const det = await determinism(env, few, maxSteps);
  rows.push(det.row);
  rows.push(await isolation(env, few[0]!, maxSteps, det.row.status === "PASS"));
  rows.push(await leakage(env, few[0]!, maxSteps));
  const oracle = await oracleAndFloor(env, played, maxSteps);
  rows.push(...oracle.rows);
  rows.push(toolSchemas(env));
  rows.push(
    await resets(
      env,
      sample(env, options.resets ?? 200, options.generated ?? 20)
    )
  );
  const runs = [...det.runs, ...oracle.runs];
  // The oracle's runs come first among its; determinism's script after.
  const config = env.validation;
  const byOracle = oracle.runs.find((p) => p.done);
  const byScript = det.runs.find((p) => p.done);
  const ended = byOracle ?? byScript;
  rows.push(
    await stepAfterDone(
      env,
      ended &&
        (async () => {
          const session = createLocalSession(env);
          let policy: OraclePolicy | undefined;
          const chosen: OraclePolicy = (o, t, h) => {
            policy ??=
              byOracle && config?.oracle
                ? config.oracle(session.task)
                : scripted(1);
            return policy(o, t, h);
          };
          const [p] = await playTogether(
            [session],
            ended.ref,
            chosen,
            maxSteps
          );
          return {
            done: p!.done,
            step: () =>
              session.step(ActionSchema().parse(doNothing([], [], []) as never))
          };
        })
    )
  );
  rows.push(finiteRewards(runs));
  return {
    environment: env.name,
    rows,
    ok: rows.every((r) => r.status !== "FAIL")
  };
};
