/** @module Determinism, isolation and leakage: the checks that compare what a local session showed. */

import type { Environment } from "../environment/define-environment";
import type { JsonValue } from "../json";
import { createLocalSession } from "../runner/local-session";
import {
  type Played,
  playTogether,
  type TaskRef,
  taskName,
  textOf
} from "./episode";
import { scripted } from "./policies";
import { type CheckRow, row } from "./report";

/** What a run showed the model: first observations and tools, then each step's observations, rewards and ends. */
const shown = (p: Played): string => textOf({ first: p.first, steps: p.steps });

/** Where two runs first part ways, for the report. */
const firstDifference = (a: Played, b: Played): string => {
  if (textOf(a.first.observations) !== textOf(b.first.observations))
    return "the first observations";
  if (textOf(a.first.tools) !== textOf(b.first.tools)) return "the tools";
  const at = a.steps.findIndex(
    (s, i) => textOf(s) !== textOf(b.steps[i] ?? null)
  );
  return at === -1 ? "the number of steps" : `step ${at + 1}`;
};

/**
 * The same task twice, side by side under the same scripted actions, must
 * show the same; and tasks that differ must not all show the same (an
 * environment that ignores the index it is reset to).
 */
export const determinism = async (
  env: Environment,
  tasks: TaskRef[],
  maxSteps: number
): Promise<{ row: CheckRow; runs: Played[] }> => {
  const runs: Played[] = [];
  for (const task of tasks) {
    const [a, b] = await playTogether(
      [createLocalSession(env), createLocalSession(env)],
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
  env: Environment,
  task: TaskRef,
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
  const session = createLocalSession(env);
  const [first] = await playTogether([session], task, scripted(2), maxSteps);
  const [again] = await playTogether([session], task, scripted(2), maxSteps);
  const fresh = (p: Played) => textOf(p.fresh);
  const failure =
    shown(first!) !== shown(again!)
      ? `the episode after a reset differs from the first in ${firstDifference(first!, again!)}: something of the first survived`
      : fresh(first!) !== fresh(again!)
        ? "the stores, state or transcript after a reset differ from the first reset's"
        : undefined;
  return row(
    "isolation",
    failure,
    `${taskName(task)} played twice in one session: the second started fresh`
  );
};

const CANARY_KEY = "__roost_validate_canary";

/** Strings and long numbers inside a value; short ones would match by chance. */
const secretsIn = (value: JsonValue | undefined): string[] => {
  if (typeof value === "string") return value.length >= 4 ? [value] : [];
  if (typeof value === "number")
    return String(value).length >= 4 ? [String(value)] : [];
  if (Array.isArray(value)) return value.flatMap(secretsIn);
  if (value !== null && typeof value === "object")
    return Object.values(value).flatMap(secretsIn);
  return [];
};

/**
 * A canary is written to the hidden store as each reset begins; neither it
 * nor anything the environment's reset hid may appear in what the model
 * sees: observations, tool schemas, the transcript's non-assistant
 * messages, the store's model view, or the updates tools emit.
 */
export const leakage = async (
  env: Environment,
  task: TaskRef,
  maxSteps: number
): Promise<CheckRow> => {
  const canary = `canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const wrapped: Environment = {
    ...env,
    reset: (args) => {
      args.ctx.hidden.set(CANARY_KEY, canary);
      return env.reset(args);
    }
  };
  const events: unknown[] = [];
  const session = createLocalSession(wrapped, {
    hooks: {
      onUpdate: (_call, update) => events.push(update),
      onResult: (_call, result) => events.push(result)
    }
  });
  const [p] = await playTogether([session], task, scripted(3), maxSteps);
  const hidden = (p!.fresh as { hidden: Record<string, JsonValue> }).hidden;
  const { [CANARY_KEY]: _, ...own } = hidden;
  const transcript = (
    session.parts.state.get("messages") as { role: string }[]
  ).filter((m) => m.role !== "assistant");
  const places: [string, unknown][] = [
    [
      "observations",
      [p!.first.observations, p!.steps.map((s) => s.observations)]
    ],
    ["tool schemas", [p!.first.tools, env.toolSchemas]],
    ["the transcript", transcript],
    ["the model's view", session.parts.environment.llmView()],
    ["events", events]
  ];
  const secrets = [canary, ...secretsIn(own)];
  for (const [place, value] of places) {
    const text = typeof value === "string" ? value : textOf(value);
    const found = secrets.find((s) => text.includes(s));
    if (found !== undefined)
      return row(
        "no leakage",
        found === canary
          ? `the hidden store's canary appears in ${place}`
          : `a value reset hid appears in ${place}`,
        ""
      );
  }
  return row(
    "no leakage",
    undefined,
    `a hidden canary and ${secretsIn(own).length} hidden value(s) stayed out of observations, tools, transcript, model view and events`
  );
};
