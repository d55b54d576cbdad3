/** @module One episode of the validator on a local session: a policy plays it, everything it showed is kept for comparison. */

import type { Environment } from "../environment/define-environment";
import type { OraclePolicy } from "../environment/validation";
import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import { ActionSchema, type OpenAITool } from "../protocol";
import { createLocalSession, type LocalSession } from "../runner/local-session";

/** Which task an episode plays: a dataset index (of a split), or the default task. */
export interface TaskRef {
  task_index?: number;
  split?: string;
}

export const taskName = (t: TaskRef): string =>
  t.task_index === undefined
    ? "the default task"
    : `task ${t.split === undefined ? "" : `${t.split}/`}${t.task_index}`;

export interface Played {
  first: { observations: Message[]; tools: OpenAITool[] };
  /** Each step's observations, reward and done, in order. */
  steps: { observations: Message[]; reward: number; done: boolean }[];
  return: number;
  done: boolean;
  /** The task as reset resolved it (what an oracle is handed). */
  task: unknown;
  /** Stores, state and transcript right after the reset. */
  fresh: JsonValue;
  ref: TaskRef;
}

/** Stores, state and transcript of a session as JSON: what a reset must leave fresh. */
export const snapshot = (s: LocalSession): JsonValue => {
  const { environment, hidden, state } = s.parts;
  return {
    store: environment.toJSON() as unknown as JsonValue,
    hidden: Object.fromEntries(hidden.keys().map((k) => [k, hidden.get(k)!])),
    state: state.toJSON(),
    transcript: state.get("messages") as JsonValue
  };
};

/** What a policy answered, as the action a session steps with. */
const actionOf = async (
  policy: OraclePolicy,
  observations: Message[],
  tools: OpenAITool[],
  history: Message[]
) => {
  const decided = await policy(observations, tools, history);
  const input =
    typeof decided === "object" && decided !== null && "action" in decided
      ? decided.action
      : decided;
  return ActionSchema().parse(input);
};

/**
 * Plays one episode in lock step on each session: every session resets to
 * the same task, then each step's action goes to all of them before the
 * next is decided (from the first session's view). Running copies side by
 * side, not one after another, means state an environment keeps outside
 * its sessions (module memory) is the same for each copy, so determinism
 * is judged apart from isolation.
 */
export const playTogether = async (
  sessions: LocalSession[],
  task: TaskRef,
  policy: OraclePolicy,
  maxSteps: number
): Promise<Played[]> => {
  const played: Played[] = [];
  for (const s of sessions) {
    const first = await s.reset(task);
    played.push({
      first,
      steps: [],
      return: 0,
      done: false,
      task: s.task,
      fresh: snapshot(s),
      ref: task
    });
  }
  let history: Message[] = [];
  let latest = played[0]!.first.observations;
  const tools = played[0]!.first.tools;
  for (let step = 0; step < maxSteps && !played[0]!.done; step++) {
    const action = await actionOf(policy, latest, tools, history);
    for (const [i, s] of sessions.entries()) {
      const p = played[i]!;
      if (p.done) continue;
      const out = await s.step(action);
      p.steps.push({
        observations: out.observations,
        reward: out.reward,
        done: out.done || out.truncated
      });
      p.return += out.reward;
      p.done = out.done || out.truncated;
    }
    history = [...history, ...latest, action as Message];
    latest = played[0]!.steps.at(-1)!.observations;
  }
  return played;
};

/** One episode of `policy` on a new local session. */
export const play = async (
  env: Environment,
  task: TaskRef,
  policy: OraclePolicy,
  maxSteps: number
): Promise<Played> =>
  (await playTogether([createLocalSession(env)], task, policy, maxSteps))[0]!;

/** Text of every message, tool calls' arguments included, for searching. */
export const textOf = (value: unknown): string => JSON.stringify(value) ?? "";
