/** @module Every check over one target, in report order: what local and server validation share. */

import { determinism, isolation } from "./checks";
import { finiteRewards, resets, stepAfterDone, toolSchemas } from "./contract";
import { perTask, playTogether, type TaskChoice } from "./episode";
import { forkContinues } from "./fork";
import { oracleAndFloor } from "./oracle";
import { doNothing, scripted } from "./policies";
import type { CheckRow, ValidationReport } from "./report";
import type { Target } from "./target";

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
  target: Target,
  count: number,
  unbounded: number
): TaskChoice[] => {
  const refs: TaskChoice[] = [];
  const add = (size: number | undefined, split?: string) => {
    for (const task_index of spread(size ?? unbounded, count))
      refs.push(split === undefined ? { task_index } : { task_index, split });
  };
  if (target.dataset !== undefined) add(target.dataset.size);
  for (const split of target.splits) add(split.size, split.name);
  return refs.length === 0 ? [{}] : refs;
};

/** The leakage check of the target's kind (a canary locally, what reset hid on a server). */
export type LeakageCheck = (
  task: TaskChoice,
  maxSteps: number
) => Promise<CheckRow>;

/**
 * Runs every check and returns the report; nothing is thrown for a check
 * that fails. The target's sessions are deleted at the end, whatever
 * happened.
 */
export const runChecks = async (
  target: Target,
  leakage: LeakageCheck,
  options: ValidateOptions = {}
): Promise<ValidationReport> => {
  try {
    const maxSteps = target.maxSteps;
    const played = sample(target, options.tasks ?? 5, options.generated ?? 20);
    // Determinism and leakage look at a few tasks; the oracle at the sample.
    const few = played.slice(0, 3);
    const rows: CheckRow[] = [];
    const det = await determinism(target, few, maxSteps);
    rows.push(det.row);
    rows.push(await forkContinues(target, det.runs[0], maxSteps));
    rows.push(
      await isolation(target, few[0]!, maxSteps, det.row.status === "PASS")
    );
    rows.push(await leakage(few[0]!, maxSteps));
    const oracle = await oracleAndFloor(target, played, maxSteps);
    rows.push(...oracle.rows);
    rows.push(toolSchemas(target));
    rows.push(
      await resets(
        target,
        sample(target, options.resets ?? 200, options.generated ?? 20)
      )
    );
    // An episode that ended, replayed: the oracle's first, else the script's.
    const byOracle = oracle.runs.find((p) => p.done);
    const byScript = det.runs.find((p) => p.done);
    const ended = byOracle ?? byScript;
    const make =
      byOracle !== undefined && target.oracle.oracle !== undefined
        ? target.oracle.oracle
        : () => scripted(1);
    rows.push(
      await stepAfterDone(
        target,
        ended &&
          (async () => {
            const session = await target.open();
            const [p] = await playTogether(
              [session],
              ended.ref,
              perTask(session, make),
              maxSteps
            );
            return {
              done: p!.done,
              step: () => session.step(doNothing([], [], []) as never)
            };
          })
      )
    );
    rows.push(finiteRewards([...det.runs, ...oracle.runs]));
    return {
      environment: target.name,
      ...(target.where === "local" ? {} : { server: target.where }),
      rows,
      ok: rows.every((r) => r.status !== "FAIL")
    };
  } finally {
    await target.finish();
  }
};
