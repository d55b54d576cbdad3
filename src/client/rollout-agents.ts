/**
 * @module One multi-agent episode of a rollout: whoever's turn it is
 * decides on its own view, with its own policy (or the rollout's, in
 * self-play), and each agent's part of the episode is kept apart, as
 * PettingZoo's agent-environment cycle gives it: what it was told before
 * each of its actions, the actions, and each action's reward, which is
 * what the agent got from it until its next one.
 */

import type { Message } from "../messages/schema";
import type {
  Action,
  AgentInfo,
  EnvironmentInfo,
  ResetResponse,
  StepResponse
} from "../protocol";
import { viewOf } from "../protocol/agents";
import { RoostClientError } from "./client-error";
import { type AdvantageOptions, groupAdvantages } from "./group-advantages";
import { type TokenTurn, tokenSequences } from "./model-tokens";
import type { Policy, PolicyContext } from "./policy";
import type { RoostSession } from "./session-client";
import type { AgentPart, Trajectory } from "./trajectory";

/** What the episode loop does with one agent's decision: parse it, step it, time it. */
export type StepAs = (
  agent: string,
  decided: Awaited<ReturnType<Policy>>
) => Promise<{ action: Action; result: StepResponse }>;

/** Refuses, before any episode, a policy for an agent no client plays. */
export const checkPolicies = (
  info: EnvironmentInfo,
  policies: Record<string, Policy> | undefined
): void => {
  for (const agent of Object.keys(policies ?? {})) {
    const found = info.agents?.find((a) => a.name === agent);
    if (found !== undefined && !found.played) continue;
    const open = (info.agents ?? []).filter((a) => !a.played);
    throw new RoostClientError(
      "invalid_request",
      `${info.name} has no agent "${agent}" that a client plays; ${open.length === 0 ? "it has one agent" : `its agents are ${open.map((a) => a.name).join(", ")}`}.`,
      400,
      { agent }
    );
  }
};

/**
 * The transcript from `from` on, read whole. Only an episode with two or
 * more agents left to clients needs it: an agent's view of another's step
 * is in no answer to it.
 */
const transcriptFrom = async (
  session: RoostSession,
  from: number
): Promise<{ messages: Message[]; total: number }> => {
  const messages: Message[] = [];
  // The transcript's cursors are offsets (docs/03): start at `from`.
  let cursor: string | undefined = String(from);
  let total = from;
  while (cursor !== undefined) {
    const page = await session.messages({ cursor });
    messages.push(...page.messages);
    total = page.total;
    cursor = page.next_cursor;
  }
  return { messages, total };
};

export const playAgents = async (
  session: RoostSession,
  reset: ResetResponse,
  trajectory: Trajectory,
  options: {
    agents: readonly AgentInfo[];
    policies: Record<string, Policy> | undefined;
    policy: Policy;
    maxSteps: number;
    context: PolicyContext;
    stepAs: StepAs;
    signal?: AbortSignal;
  }
): Promise<void> => {
  const { agents } = options;
  const clients = agents.filter((a) => !a.played).map((a) => a.name);
  const parts: Record<string, AgentPart> = {};
  const pending: Record<string, Message[]> = {};
  const history: Record<string, Message[]> = {};
  for (const { name } of agents) {
    parts[name] = {
      observations: [],
      actions: [],
      rewards: [],
      return: 0,
      steps: []
    };
    pending[name] = viewOf(reset.observations, name);
    history[name] = [];
  }
  trajectory.agents = parts;
  let seen = reset.observations.length;
  let turn = reset.turn ?? [clients[0]!];
  // The environment's own agents may have ended it before anyone acted.
  if (turn.length === 0) trajectory.done = true;
  while (!trajectory.done && !trajectory.truncated) {
    if (trajectory.actions.length >= options.maxSteps) {
      trajectory.truncated = true;
      break;
    }
    options.signal?.throwIfAborted();
    const agent = turn.find((a) => clients.includes(a)) ?? turn[0]!;
    const observations = pending[agent]!;
    pending[agent] = [];
    const policy = options.policies?.[agent] ?? options.policy;
    const decided = await policy(
      observations,
      reset.tools.filter((t) =>
        agents.find((a) => a.name === agent)!.tools.includes(t.function.name)
      ),
      history[agent]!,
      { ...options.context, agent }
    );
    const { action, result } = await options.stepAs(agent, decided);
    history[agent]!.push(...observations, action);
    const part = parts[agent]!;
    part.observations.push(observations);
    part.actions.push(action);
    part.rewards.push(0);
    part.steps.push(trajectory.actions.length);
    for (const [a, r] of Object.entries(result.rewards ?? {})) {
      const got = parts[a];
      if (got === undefined) continue;
      got.return += r;
      if (got.rewards.length > 0) got.rewards[got.rewards.length - 1]! += r;
    }
    if (clients.length > 1) {
      const read = await transcriptFrom(session, seen);
      seen = read.total;
      // Its first message is the action itself, which the agent wrote.
      const told = read.messages.slice(1);
      for (const a of clients) {
        if (a !== agent) pending[a]!.push(...viewOf(told, a));
      }
    }
    pending[agent]!.push(...result.observations);
    turn = result.turn ?? [];
  }
  // What each agent was told after its last action: the game's end.
  for (const a of clients) parts[a]!.observations.push(pending[a]!);
};

/**
 * Each agent's share of the episode's model calls: a call made after `k`
 * steps decided step `k + 1`, so it is that step's agent's. A sequence
 * goes on while each prompt extends the same agent's previous turn.
 */
export const agentTokenSequences = (
  parts: Record<string, AgentPart>,
  turns: readonly TokenTurn[]
): void => {
  for (const part of Object.values(parts)) {
    if (part.actions.length === 0) continue;
    const mine = new Set(part.steps);
    let previous: number[] | undefined;
    const own = turns
      .filter((t) => mine.has(t.step + 1))
      .map((t) => {
        const extends_previous =
          previous !== undefined &&
          previous.length <= t.prompt_ids.length &&
          previous.every((id, i) => t.prompt_ids[i] === id);
        previous = [...t.prompt_ids, ...t.completion_ids];
        return { ...t, extends_previous };
      });
    part.token_sequences = own.length === 0 ? null : tokenSequences(own);
  }
};

/**
 * With groups: each agent's advantage in its group, of its own return (a
 * self-play group's x and o each against the other copies' x and o),
 * with the group's options but always of the return.
 */
export const agentAdvantages = (
  members: readonly Trajectory[],
  options: AdvantageOptions<Trajectory> = {}
): void => {
  const { score: _score, ...rest } = options;
  const names = new Set(members.flatMap((t) => Object.keys(t.agents ?? {})));
  for (const name of names) {
    const own = members.map((t) => ({
      group_id: t.group_id,
      error: t.error,
      return: t.agents?.[name]?.return ?? Number.NaN
    }));
    const { trajectories } = groupAdvantages(own, rest);
    for (const [i, t] of members.entries()) {
      const part = t.agents?.[name];
      if (part !== undefined) part.advantage = trajectories[i]!.advantage;
    }
  }
};
