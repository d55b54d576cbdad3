/** @module One episode of the validator: a policy plays it on one or more sessions, everything they showed is kept for comparison. */

import type { OraclePolicy } from "../environment/validation";
import type { JsonValue } from "../json";
import type { AssistantMessage, Message } from "../messages/schema";
import { ActionSchema, type OpenAITool } from "../protocol";
import type { StepShown, Target, TaskChoice, ValidatedSession } from "./target";

export type { TaskChoice } from "./target";

export const taskName = (t: TaskChoice): string =>
  t.task_index === undefined
    ? "the default task"
    : `task ${t.split === undefined ? "" : `${t.split}/`}${t.task_index}`;

export interface Played {
  first: { observations: Message[]; tools: OpenAITool[] };
  /** Each step's observations, reward and done, in order. */
  steps: StepShown[];
  /** The action of each step, in order (what a replay repeats). */
  actions: AssistantMessage[];
  return: number;
  done: boolean;
  /** The task as reset resolved it (what an oracle is handed). */
  task: unknown;
  /** Stores, state and transcript right after the reset. */
  fresh: JsonValue;
  ref: TaskChoice;
}

/** What a policy answered, as the action a session steps with. */
export const actionOf = async (
  policy: OraclePolicy,
  observations: Message[],
  tools: OpenAITool[],
  history: Message[]
): Promise<AssistantMessage> => {
  const decided = await policy(observations, tools, history);
  const input =
    typeof decided === "object" && decided !== null && "action" in decided
      ? decided.action
      : decided;
  return ActionSchema().parse(input) as AssistantMessage;
};

/** A policy made on first use, from the task the first session's reset resolved (an oracle reads it). */
export const perTask = (
  session: ValidatedSession,
  make: (task: unknown) => OraclePolicy
): OraclePolicy => {
  let policy: OraclePolicy | undefined;
  return (o, t, h) => {
    policy ??= make(session.task());
    return policy(o, t, h);
  };
};

/** Steps each session not yet done with `action`, recording what it showed. */
export const stepAll = async (
  sessions: ValidatedSession[],
  played: Played[],
  action: AssistantMessage
): Promise<void> => {
  for (const [i, s] of sessions.entries()) {
    const p = played[i]!;
    if (p.done) continue;
    const out = await s.step(action);
    p.steps.push(out);
    p.actions.push(action);
    p.return += out.reward;
    p.done = out.done;
  }
};

/**
 * Plays on in lock step from where `played` stand: each step's action goes
 * to every session before the next is decided (from the first session's
 * view), until the first is done or `maxSteps` steps were taken.
 * `afterStep` sees each step as soon as it is taken (the leakage check
 * reads what it showed then).
 */
export const playOn = async (
  sessions: ValidatedSession[],
  played: Played[],
  policy: OraclePolicy,
  maxSteps: number,
  afterStep?: () => Promise<void> | void
): Promise<void> => {
  const lead = played[0]!;
  const tools = lead.first.tools;
  // The history a policy was shown before each step, rebuilt for the steps already taken.
  let history: Message[] = [];
  let latest = lead.first.observations;
  for (const [i, s] of lead.steps.entries()) {
    history = [...history, ...latest, lead.actions[i]!];
    latest = s.observations;
  }
  while (lead.steps.length < maxSteps && !lead.done) {
    const action = await actionOf(policy, latest, tools, history);
    await stepAll(sessions, played, action);
    await afterStep?.();
    history = [...history, ...latest, action as Message];
    latest = lead.steps.at(-1)!.observations;
  }
};

/** Resets the session to `task` and records the start. */
export const begin = async (
  session: ValidatedSession,
  task: TaskChoice
): Promise<Played> => {
  const first = await session.reset(task);
  return {
    first,
    steps: [],
    actions: [],
    return: 0,
    done: false,
    task: session.task(),
    fresh: await session.snapshot(),
    ref: task
  };
};

/**
 * Plays one episode in lock step on each session: every session resets to
 * the same task, then each step's action goes to all of them before the
 * next is decided. Running copies side by side, not one after another,
 * means state an environment keeps outside its sessions (module memory)
 * is the same for each copy, so determinism is judged apart from
 * isolation.
 */
export const playTogether = async (
  sessions: ValidatedSession[],
  task: TaskChoice,
  policy: OraclePolicy,
  maxSteps: number
): Promise<Played[]> => {
  const played: Played[] = [];
  for (const s of sessions) played.push(await begin(s, task));
  await playOn(sessions, played, policy, maxSteps);
  return played;
};

/** One episode of `policy` (made from the resolved task) on a new session of the target. */
export const play = async (
  target: Target,
  task: TaskChoice,
  make: (task: unknown) => OraclePolicy,
  maxSteps: number
): Promise<Played> => {
  const session = await target.open();
  return (
    await playTogether([session], task, perTask(session, make), maxSteps)
  )[0]!;
};

/** Text of every message, tool calls' arguments included, for searching. */
export const textOf = (value: unknown): string => JSON.stringify(value) ?? "";
