/**
 * @module The rules of an episode, written once for every kind of session:
 * what a reset, a step and a direct call need of the episode, what they
 * change of its record, and the errors that refuse them. A Durable Object
 * session applies them to its session row, a local session to a record in
 * memory, and a contract suite (episode-machine.case.ts) runs the same
 * episodes against both.
 */

import { RoostError } from "../errors";
import type { AssistantMessage, Message } from "../messages/schema";
import type { ExecuteOptions } from "../tools/execute";
import type { OpenAITool } from "../tools/json-schema";
import type { CallOutcome } from "../tools/types";
import { agentsOf, rosterOf, stepAgent } from "./agents";
import type { Environment } from "./define-environment";
import { episodeEnvironment } from "./episode-tools";
import {
  invokeTool,
  runReset,
  runStep,
  type SessionParts,
  type StepOptions,
  type StepOutcome
} from "./hook-calls";
import { playTurns, withPlayed } from "./played-turns";

/** Where an episode stands. A session row has these fields among others. */
export interface EpisodeRecord {
  /** 0 until the first reset. */
  episode: number;
  /** The running episode's task. */
  episodeTask: unknown;
  /** The tools the running episode's reset chose; undefined offers them all. */
  episodeTools?: string[];
  /** Steps taken in this episode. */
  steps: number;
  /** The last step's reward. */
  reward: number;
  /** The sum of this episode's rewards: its return. */
  total: number;
  done: boolean;
  truncated: boolean;
}

/** A record before the first reset. */
export const noEpisode = (): EpisodeRecord => ({
  episode: 0,
  episodeTask: undefined,
  steps: 0,
  reward: 0,
  total: 0,
  done: false,
  truncated: false
});

/**
 * What a mutation needs of the episode: a reset nothing, a step one that
 * has not ended, anything else (a direct call, an edit, a run) one that
 * exists, ended or not.
 */
export type EpisodeNeed = "nothing" | "episode" | "running";

/** Refuses, with `episode_not_running`, what the episode cannot take now. */
export const requireEpisode = (rec: EpisodeRecord, need: EpisodeNeed): void => {
  if (need === "nothing") return;
  if (rec.episode === 0) {
    throw new RoostError(
      "episode_not_running",
      need === "running"
        ? "Reset the session before stepping."
        : "Reset the session first: it has no episode yet."
    );
  }
  if (need === "running" && (rec.done || rec.truncated)) {
    throw new RoostError(
      "episode_not_running",
      "The episode has ended; reset to start another."
    );
  }
};

/**
 * Numbers the episode a reset starts. It comes before the environment's
 * reset runs, so what that writes and streams carries the new number; a
 * caller whose reset may fail applies it to a copy it keeps only once
 * the reset succeeded.
 */
export const openEpisode = (rec: EpisodeRecord): void => {
  rec.episode++;
};

/**
 * Runs the environment's reset on the new episode's parts and starts the
 * episode: its task, the tools its reset chose, counters at zero. A reset
 * that throws changes nothing of `rec`.
 */
export const resetEpisode = async (
  environment: Environment,
  rec: EpisodeRecord,
  parts: SessionParts,
  task: unknown,
  options: StepOptions = {}
): Promise<{
  observations: Message[];
  tools: OpenAITool[];
  turn?: string[];
}> => {
  const reset = await runReset(environment, parts, task, options);
  const { tools } = reset;
  let { observations } = reset;
  let reward = 0;
  const roster = rosterOf(environment);
  if (roster !== undefined) {
    // A played agent may move first: its turns are the reset's, step 0.
    const sum = { ...agentsOf(parts).rewards };
    const played = await playTurns(
      environment,
      tools,
      parts,
      task,
      0,
      undefined,
      sum,
      options
    );
    observations = [...observations, ...played.observations];
    reward = sum[roster[0]!]!;
  }
  rec.episodeTask = task;
  rec.episodeTools = tools;
  rec.steps = 0;
  rec.reward = reward;
  rec.total = reward;
  // Played agents may end the episode before a client acts.
  rec.done = roster !== undefined && agentsOf(parts).turn.length === 0;
  rec.truncated = false;
  return {
    observations,
    tools: [...episodeEnvironment(environment, tools).toolSchemas],
    ...(roster === undefined ? {} : { turn: agentsOf(parts).turn })
  };
};

/** Refuses an action with more than `max` tool calls before any of them runs. */
export const checkToolCalls = (action: AssistantMessage, max: number): void => {
  if ((action.tool_calls?.length ?? 0) > max) {
    throw new RoostError(
      "payload_too_large",
      `An action may make at most ${max} tool calls.`,
      { limit: "toolCallsPerAction", max }
    );
  }
};

/**
 * One step of a running episode, with the tools its reset chose: the
 * record counts it, keeps its reward, adds it to the return and takes its
 * ending. A step that throws changes nothing of `rec`. In a multi-agent
 * environment it is the step of `options.agent`, or of the one agent
 * whose turn it is, with that agent's tools; refused before anything
 * runs when it is not that agent's turn. The record's reward is then the
 * first agent's (see hook-calls.ts); the state's `agents` holds every
 * agent's. The turns of agents the environment plays follow it, in it.
 */
export const stepEpisode = async (
  environment: Environment,
  rec: EpisodeRecord,
  parts: SessionParts,
  action: AssistantMessage,
  options: StepOptions = {}
): Promise<StepOutcome> => {
  const agent = stepAgent(environment, parts, options.agent);
  const episode = episodeEnvironment(environment, rec.episodeTools);
  if (agent !== undefined) options.onTurn?.(agent);
  const stepped = await runStep(
    agent === undefined
      ? episode
      : episodeEnvironment(episode, environment.agents?.[agent]?.tools),
    parts,
    rec.episodeTask,
    rec.steps + 1,
    action,
    agent === undefined ? options : { ...options, agent }
  );
  const out = await withPlayed(
    environment,
    rec.episodeTools,
    parts,
    rec.episodeTask,
    rec.steps + 1,
    stepped,
    options
  );
  rec.steps++;
  rec.reward = out.reward;
  rec.total += out.reward;
  rec.done = out.done;
  rec.truncated = out.truncated;
  return out;
};

/**
 * One tool called outside a step. It is no step: the record keeps its
 * counters, and the tool's rewards and endings are dropped. Refused when
 * the environment lacks the tool or this episode does not offer it.
 */
export const callInEpisode = async (
  environment: Environment,
  rec: EpisodeRecord,
  parts: SessionParts,
  call: { id: string; tool: string; arguments: Record<string, unknown> },
  options: ExecuteOptions = {}
): Promise<CallOutcome> => {
  requireOffered(environment, rec, call.tool);
  return invokeTool(environment, parts, rec.episodeTask, call, options);
};

/** Refuses a tool the environment lacks or this episode does not offer. */
export const requireOffered = (
  environment: Environment,
  rec: EpisodeRecord,
  tool: string
): void => {
  const offered = rec.episodeTools;
  if (!environment.tools.has(tool)) {
    // The tools a call may name now: the episode's, else all of them.
    const tools = offered ?? [...environment.tools.keys()];
    throw new RoostError(
      "not_found",
      `Environment ${environment.name} has no tool "${tool}". Tools: ${tools.join(", ") || "none"}.`,
      { tool, tools: [...tools] }
    );
  }
  if (offered !== undefined && !offered.includes(tool)) {
    throw new RoostError(
      "not_found",
      `Tool "${tool}" of ${environment.name} is not offered in this episode; its reset chose: ${offered.join(", ") || "no tools"}.`,
      { tool, episode_tools: [...offered] }
    );
  }
};
