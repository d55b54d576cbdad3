/** @module Determinism and isolation: the checks that compare what sessions showed, local or on a server. */

import {
  type Played,
  playTogether,
  type TaskChoice,
  taskName,
  textOf
} from "./episode";
import { scripted } from "./policies";
import { type CheckRow, row } from "./report";
import type { Target } from "./target";

/** What a run showed the model: first observations and tools, then each step's observations, rewards and ends. */
export const shown = (p: Played): string =>
  textOf({ first: p.first, steps: p.steps });

/** Where two runs first part ways, for the report. */
export const firstDifference = (a: Played, b: Played): string => {
  if (textOf(a.first.observations) !== textOf(b.first.observations))
    return "the first observations";
  if (textOf(a.first.tools) !== textOf(b.first.tools)) return "the tools";
  const at = a.steps.findIndex(
    (s, i) => textOf(s) !== textOf(b.steps[i] ?? null)
  );
  if (at === -1) return "the number of steps";
  // The tool whose message differs first, when a tool's message does.
  const x = a.steps[at]!.observations;
  const y = b.steps[at]?.observations ?? [];
  const i = x.findIndex((m, k) => textOf(m) !== textOf(y[k] ?? null));
  const m = x[i] ?? y[i];
  return m?.role === "tool" && m.name !== undefined
    ? `step ${at + 1} (tool ${m.name})`
    : `step ${at + 1}`;
};

/**
 * The same task twice, side by side under the same scripted actions, must
 * show the same; and tasks that differ must not all show the same (an
 * environment that ignores the index it is reset to).
 */
export const determinism = async (
  target: Target,
  tasks: TaskChoice[],
  maxSteps: number
): Promise<{ row: CheckRow; runs: Played[] }> => {
  const runs: Played[] = [];
  for (const task of tasks) {
    const [a, b] = await playTogether(
      [await target.open(), await target.open()],
      task,
      scripted(1),
      maxSteps
    );
    runs.push(a!, b!);
    if (shown(a!) !== shown(b!))
      return {
        row: row(
          "determinism",
          `${taskName(task)} reset twice differs in ${firstDifference(a!, b!)}`,
          ""
        ),
        runs
      };
  }
  const firsts = runs.filter((_, i) => i % 2 === 0);
  const distinctTasks = new Set(firsts.map((p) => textOf(p.task))).size;
  const distinctRuns = new Set(firsts.map(shown)).size;
  const ignored =
    distinctTasks > 1 && distinctRuns === 1
      ? `${distinctTasks} different tasks all showed the same: the task is ignored`
      : undefined;
  return {
    row: row(
      "determinism",
      ignored,
      `${tasks.length} task${tasks.length === 1 ? "" : "s"} reset twice showed the same under the same actions`
    ),
    runs
  };
};

/**
 * An episode, then a reset to the same task in the same session: the
 * stores, state, transcript and everything shown must be as they were
 * after the first reset. Only meaningful for a deterministic environment.
 */
export const isolation = async (
  target: Target,
  task: TaskChoice,
  maxSteps: number,
  deterministic: boolean
): Promise<CheckRow> => {
  if (!deterministic)
    return {
      check: "isolation",
      status: "SKIP",
      detail:
        "needs determinism: runs that differ anyway cannot show a leftover"
    };
  const session = await target.open();
  const [first] = await playTogether([session], task, scripted(2), maxSteps);
  const [again] = await playTogether([session], task, scripted(2), maxSteps);
  const fresh = (p: Played) => textOf(p.fresh);
  const failure =
    shown(first!) !== shown(again!)
      ? `${taskName(task)} played again after a reset differs from the first in ${firstDifference(first!, again!)}: something of the first survived`
      : fresh(first!) !== fresh(again!)
        ? `a second reset of ${taskName(task)} left ${freshDifference(first!, again!)} unlike the first`
        : undefined;
  return row(
    "isolation",
    failure,
    `${taskName(task)} played twice in one session: the second started fresh`
  );
};

const PARTS: Record<string, string> = {
  store: "the store",
  hidden: "the hidden store",
  state: "the state",
  transcript: "the transcript"
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Which parts of two fresh snapshots differ, each keyed part (the hidden
 * store, the state, a local store) with the keys that differ: `the hidden
 * store's key "tried"`.
 */
const freshDifference = (a: Played, b: Played): string => {
  const x = a.fresh as Record<string, unknown>;
  const y = b.fresh as Record<string, unknown>;
  const parts = Object.keys(x)
    .filter((k) => textOf(x[k]) !== textOf(y[k]))
    .map((part) => {
      const name = PARTS[part] ?? part;
      const [p, q] = [x[part], y[part]];
      if (!isRecord(p) || !isRecord(q)) return name;
      const keys = [...new Set([...Object.keys(p), ...Object.keys(q)])].filter(
        (k) => textOf(p[k] ?? null) !== textOf(q[k] ?? null)
      );
      return keys.length === 0
        ? name
        : `${name}'s key${keys.length === 1 ? "" : "s"} ${keys.map((k) => JSON.stringify(k)).join(", ")}`;
    });
  return parts.length === 0
    ? "the stores, state or transcript"
    : parts.join(", ");
};
