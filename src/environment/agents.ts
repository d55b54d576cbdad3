/**
 * @module Many agents in one episode (PettingZoo's agent-environment
 * cycle): the roles an environment declares, whose turn it is, each
 * agent's reward and ending, and which messages each one sees.
 *
 * Where the agents stand is kept in the typed state under `agents`, so it
 * is durable, folded into a step's one row, forked and restored like any
 * other value, and public like the state: whose turn it is and what each
 * agent scored are the game's shared record. What is private to an agent
 * is a message tagged with its name (`agent`); an untagged message is
 * every agent's.
 */

import * as z from "zod";
import { RoostError } from "../errors";
import { lazy } from "../lazy";
import type { Message } from "../messages/schema";
import { NAME_RE } from "../names";
import type { StateField, StateShape } from "../state/types";
import type { Environment } from "./define-environment";
import type { Observations } from "./episode-context";
import type { Play } from "./played-turns";

/** One role of a multi-agent environment. */
export interface AgentConfig<
  Shape extends StateShape = StateShape,
  Task = unknown
> {
  description?: string;
  /** The environment's tools this agent may call; every tool if absent. */
  tools?: readonly string[];
  /**
   * Makes the environment play this agent (played-turns.ts): a scripted
   * opponent, or a simulated user asking a model. No client acts for it.
   */
  play?: Play<Shape, Task>;
}

/** The state key where the agents stand. */
export const AGENTS_KEY = "agents";

export const AgentsRecordSchema = lazy(() =>
  z.object({
    /** The agents that may act now: one at a time, none once all are done. */
    turn: z.array(z.string()),
    /** What each agent got from the latest step. */
    rewards: z.record(z.string(), z.number()),
    /** What each agent got over the episode. */
    returns: z.record(z.string(), z.number()),
    /** The agents whose part in the episode has ended. */
    done: z.array(z.string())
  })
);
export type AgentsRecord = z.infer<ReturnType<typeof AgentsRecordSchema>>;

/** The state field the runtime adds for a multi-agent environment. */
export const agentsField = (): StateField => ({ type: AgentsRecordSchema() });

/** Observations for some agents each: what only that agent sees. */
export type AgentObservations = Readonly<Record<string, Observations>>;

/** Refuses a roster an environment cannot be defined with. */
export const checkAgents = (
  config: {
    name: string;
    agents?: Readonly<
      Record<string, { tools?: readonly string[]; play?: unknown }>
    >;
    episodeRubric?: unknown;
  },
  tools: ReadonlyMap<string, unknown>,
  stateKeys: readonly string[]
): void => {
  const { name: environment, agents = {} } = config;
  const episodeRubric = config.episodeRubric !== undefined;
  const names = Object.keys(agents);
  if (names.length === 0) {
    throw new RoostError(
      "invalid_request",
      `agents of ${environment} names no agent; leave it out for one agent.`
    );
  }
  if (stateKeys.includes(AGENTS_KEY)) {
    throw new RoostError(
      "invalid_request",
      `State key "${AGENTS_KEY}" of ${environment} is reserved in a multi-agent environment: it holds where the agents stand. Pick another name.`
    );
  }
  // A played turn may end the episode after its step was scored as going
  // on: the episode's score would never be given.
  if (episodeRubric && names.some((name) => agents[name]!.play !== undefined)) {
    throw new RoostError(
      "invalid_request",
      `${environment} has an episode rubric and agents it plays itself, which Roost does not support yet: score the episode in its step instead.`
    );
  }
  if (names.every((name) => agents[name]!.play !== undefined)) {
    throw new RoostError(
      "invalid_request",
      `Every agent of ${environment} is played by the environment: leave at least one to a client.`
    );
  }
  for (const name of names) {
    if (!["undefined", "function"].includes(typeof agents[name]!.play)) {
      throw new RoostError(
        "invalid_request",
        `play of agent "${name}" in ${environment} must be a function.`
      );
    }
    // "role" would make a record of observations read as a message.
    if (!NAME_RE.test(name) || name === "role") {
      throw new RoostError(
        "invalid_name",
        `Agent name "${name}" in ${environment} must match ${NAME_RE} and not be "role".`
      );
    }
    for (const t of agents[name]!.tools ?? []) {
      if (!tools.has(t)) {
        throw new RoostError(
          "invalid_request",
          `Agent "${name}" of ${environment} names tool "${t}", which ${environment} does not have.`
        );
      }
    }
  }
};

const isMessage = (o: object): boolean => Array.isArray(o) || "role" in o;

/**
 * Observations as transcript messages: a plain one (text, a message, a
 * list) is every agent's, a record by agent name each agent's own.
 */
export const agentMessages = (
  environment: string,
  roster: readonly string[],
  observations: Observations | AgentObservations,
  toMessages: (o: Observations) => Message[]
): Message[] => {
  if (typeof observations === "string" || isMessage(observations))
    return toMessages(observations as Observations);
  const out: Message[] = [];
  for (const [agent, own] of Object.entries(observations)) {
    if (!roster.includes(agent)) {
      throw new RoostError(
        "internal",
        `${environment} returned observations for "${agent}", which is none of its agents (${roster.join(", ")}).`
      );
    }
    for (const m of toMessages(own as Observations)) out.push({ ...m, agent });
  }
  return out;
};

const turnOf = (
  environment: string,
  roster: readonly string[],
  turn: string | readonly string[] | undefined,
  live: readonly string[]
): string[] | undefined => {
  if (turn === undefined) return undefined;
  const named = typeof turn === "string" ? [turn] : [...turn];
  for (const a of named) {
    if (!roster.includes(a) || !live.includes(a)) {
      throw new RoostError(
        "internal",
        `${environment} gave the turn to "${a}", which is ${roster.includes(a) ? "done" : "none of its agents"}.`
      );
    }
  }
  return named;
};

/** The record a reset starts: nobody has scored, the turn is the environment's choice or the first agent's. */
export const startAgents = (
  environment: string,
  roster: readonly string[],
  turn: string | readonly string[] | undefined
): AgentsRecord => {
  const zero = Object.fromEntries(roster.map((a) => [a, 0]));
  return {
    turn: turnOf(environment, roster, turn, roster) ?? [roster[0]!],
    rewards: { ...zero },
    returns: { ...zero },
    done: []
  };
};

/**
 * The agent acting: the one asked for, or, when none is, the one whose
 * turn it is. Refused, changing nothing, for an agent the environment
 * lacks (400) and for one whose turn it is not (409, naming whose it is).
 */
export const actingAgent = (
  roster: readonly string[],
  record: AgentsRecord,
  asked: string | undefined
): string => {
  if (asked !== undefined && !roster.includes(asked)) {
    throw new RoostError(
      "invalid_request",
      `This environment has no agent "${asked}"; its agents are ${roster.join(", ")}.`,
      { agent: asked, agents: [...roster] }
    );
  }
  const agent =
    asked ?? (record.turn.length === 1 ? record.turn[0] : undefined);
  if (agent === undefined) {
    throw new RoostError(
      "invalid_request",
      `Name the agent acting ("agent"): it is the turn of ${record.turn.join(", ")}.`,
      { turn: [...record.turn] }
    );
  }
  if (!record.turn.includes(agent)) {
    throw new RoostError(
      "not_your_turn",
      `It is not ${agent}'s turn: it is ${record.turn.join(", ")}'s.`,
      { agent, turn: [...record.turn] }
    );
  }
  return agent;
};

/** What a step says of its agents; each part optional. */
export interface AgentsOutcome {
  rewards?: Readonly<Record<string, number>>;
  /** `true` ends every agent's part, a list those agents'. */
  done?: boolean | readonly string[];
  turn?: string | readonly string[];
}

/**
 * The record after `agent`'s step: rewards taken (0 for an agent not
 * named), endings added, and the turn the environment gave, else the next
 * agent still playing after `agent`, in the environment's order.
 */
export const advanceAgents = (
  environment: string,
  roster: readonly string[],
  record: AgentsRecord,
  agent: string,
  outcome: AgentsOutcome
): AgentsRecord => {
  const rewards: Record<string, number> = {};
  const returns = { ...record.returns };
  for (const a of roster) {
    const r = outcome.rewards?.[a] ?? 0;
    if (!Number.isFinite(r)) {
      throw new RoostError(
        "internal",
        `${environment} gave ${a} a reward of ${r}: rewards must be finite numbers.`
      );
    }
    rewards[a] = r;
    returns[a] = (returns[a] ?? 0) + r;
  }
  for (const a of Object.keys(outcome.rewards ?? {})) {
    if (!roster.includes(a)) {
      throw new RoostError(
        "internal",
        `${environment} rewarded "${a}", which is none of its agents (${roster.join(", ")}).`
      );
    }
  }
  const ended = new Set(record.done);
  if (outcome.done === true) for (const a of roster) ended.add(a);
  else if (Array.isArray(outcome.done)) {
    for (const a of outcome.done) {
      if (!roster.includes(a)) {
        throw new RoostError(
          "internal",
          `${environment} ended "${a}", which is none of its agents (${roster.join(", ")}).`
        );
      }
      ended.add(a);
    }
  }
  const done = roster.filter((a) => ended.has(a));
  const live = roster.filter((a) => !ended.has(a));
  const given = turnOf(environment, roster, outcome.turn, live);
  if (given?.length === 0 && live.length > 0) {
    throw new RoostError(
      "internal",
      `${environment} gave the turn to nobody while ${live.join(", ")} still play.`
    );
  }
  const from = roster.indexOf(agent);
  const next = roster
    .map((_, i) => roster[(from + 1 + i) % roster.length]!)
    .find((a) => live.includes(a));
  return {
    turn: given ?? (next === undefined ? [] : [next]),
    rewards,
    returns,
    done
  };
};

/** The agents of a multi-agent environment, in its order; undefined for one agent. */
export const rosterOf = (environment: Environment): string[] | undefined =>
  environment.agents === undefined
    ? undefined
    : Object.keys(environment.agents);

/** Where the agents of `parts` stand (a multi-agent episode's). */
export const agentsOf = (parts: {
  state: { get(key: string): unknown };
}): AgentsRecord => parts.state.get(AGENTS_KEY) as AgentsRecord;

/**
 * The agent a step is taken by in a multi-agent environment (see
 * `actingAgent`), undefined in a one-agent one; refuses before anything
 * is written.
 */
export const stepAgent = (
  environment: Environment,
  parts: { state: { get(key: string): unknown } },
  asked: string | undefined
): string | undefined => {
  const roster = rosterOf(environment);
  if (roster === undefined) {
    if (asked !== undefined) {
      throw new RoostError(
        "invalid_request",
        `${environment.name} has one agent: leave "agent" out.`,
        { agent: asked }
      );
    }
    return undefined;
  }
  return actingAgent(roster, agentsOf(parts), asked);
};

/**
 * The agent a client that knows of one agent plays (OpenEnv's, Aviary's):
 * the one it asks for, else the only agent the environment does not play
 * itself; undefined in a one-agent environment, and where several are
 * left to clients and none was asked for (one client then plays whoever's
 * turn it is: self-play).
 */
export const servedAgent = (
  environment: Environment,
  asked: string | undefined
): string | undefined => {
  const roster = rosterOf(environment);
  if (roster === undefined) return stepAgent(environment, EMPTY, asked);
  if (asked !== undefined) {
    if (!roster.includes(asked)) {
      throw new RoostError(
        "invalid_request",
        `This environment has no agent "${asked}"; its agents are ${roster.join(", ")}.`,
        { agent: asked, agents: [...roster] }
      );
    }
    return asked;
  }
  const open = roster.filter(
    (a) => environment.agents?.[a]?.play === undefined
  );
  return open.length === 1 ? open[0] : undefined;
};

const EMPTY = { state: { get: () => undefined } };

/** Of `tools` (OpenAI's form), those `agent` may call; all of them for no agent. */
export const toolsOfAgent = <T extends { function: { name: string } }>(
  environment: Environment,
  agent: string | undefined,
  tools: readonly T[]
): T[] => {
  const names =
    agent === undefined ? undefined : environment.agents?.[agent]?.tools;
  return names === undefined
    ? [...tools]
    : tools.filter((t) => names.includes(t.function.name));
};
