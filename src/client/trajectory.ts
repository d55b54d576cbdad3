/** @module What one rollout episode recorded, as written to JSONL (snake_case, like the wire). */

import type { JsonObject, JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { Action, OpenAITool, RewardComponents } from "../protocol";
import type { BranchPoint } from "./branch-values";
import type { ChatMessage } from "./chat-format";
import type { TokenSequence } from "./model-tokens";
import type { TokenUsage } from "./policy";

export interface Trajectory {
  /** 0-based position in the run. */
  episode: number;
  environment: string;
  /** The task the episode was created with, when given as a task rather than an index. */
  task: JsonValue | null;
  /** Null when creating the session failed. */
  session_id: string | null;
  /** The dataset index the session was created from, if any. */
  task_index: number | null;
  /** The split `task_index` picked from; null for the default dataset. */
  split: string | null;
  /** With `groupSize`: the group's number; its episodes started from one identical state. */
  group_id: number | null;
  /** With `groupSize`: this episode's place in its group (0 ran on the session the others were forked from). */
  group_index: number | null;
  /** The tools the reset offered, in OpenAI's form. */
  tools: OpenAITool[];
  /**
   * The whole conversation in OpenAI's chat format: the reset's
   * observations, then each action and what it observed (arguments as the
   * JSON strings the model produced) — a conversational training example.
   */
  messages: ChatMessage[];
  /** The policy's `info`: for a model, its name and sampling parameters. */
  policy: JsonObject | null;
  /** Tokens over the episode, when the model endpoint reported them. */
  usage: TokenUsage | null;
  /** Failed attempts at the model that a retry got past (429s, 5xx, timeouts). */
  model_retries: string[];
  /** `observations[0]` from the reset, then one list per step. */
  observations: Message[][];
  /** Each step's action, its tool calls' arguments as JSON strings (OpenAI's form) whatever the policy wrote. */
  actions: Action[];
  rewards: number[];
  /**
   * Each step's `reward_components` as the step answered them, aligned
   * with `rewards`; an entry is null for a step answered without them (an
   * environment without rubrics), so `rewards[i]` always has its entry.
   */
  reward_components: (RewardComponents | null)[];
  return: number;
  /**
   * With `groupSize`: the GRPO advantage of this episode's return in its
   * group, (return − group_mean) / (group_std + ε) (see groupAdvantages);
   * null without groups and for an episode that stopped on an error.
   */
  advantage: number | null;
  /** With `groupSize`: the mean and population standard deviation of the group's returns (episodes without an error). */
  group_mean: number | null;
  group_std: number | null;
  /** With a group judge: its score of this episode against its group's others, in [0, 1]. */
  group_score?: number | null;
  /** With a group judge: 1 for the best of the group; equal scores share the better rank (1, 2, 2, 4). */
  rank?: number | null;
  /** With a group judge: the one sentence it gave for this score. */
  group_judge_explanation?: string | null;
  /** With a group judge: why it gave this group no scores (after its retries); the rollout is kept. */
  group_judge_error?: string | null;
  done: boolean;
  /** Set by the environment's `maxSteps`, or by the run's own `maxSteps`. */
  truncated: boolean;
  /** Round trip of the reset (with groups: the reset and the fork), then of each step, in milliseconds. */
  reset_ms: number;
  step_ms: number[];
  duration_ms: number;
  /** Why the episode stopped early: a policy exception, an HTTP error, an abort. */
  error: { code: string; message: string } | null;
  /** Whether the session was deleted afterwards (false leaves it to its idle TTL). */
  deleted: boolean;
  /**
   * With `modelGateway`: the episode's model calls as training sequences
   * (token ids, loss mask, logprobs), one more at each break; null
   * without it, or when the upstream gave no token ids.
   */
  token_sequences?: TokenSequence[] | null;
  /**
   * With `branches`: each branch point (a step the episode was forked
   * after), its continuations' returns and their mean, the Monte Carlo
   * value of the state there.
   */
  branches?: BranchPoint[];
  /** With `branches`: each step's `reward + V(after) − V(before)`, null where a value is not known. */
  step_advantages?: (number | null)[];
  /**
   * In a multi-agent environment, each agent's own part, by name (the
   * fields above are the session's: every step, whoever took it).
   */
  agents?: Record<string, AgentPart>;
}

/** One agent's part of a multi-agent episode, as PettingZoo's cycle gives it. */
export interface AgentPart {
  /** What it was told before each of its actions, then after its last. */
  observations: Message[][];
  actions: Action[];
  /** Each action's reward: what the agent got from it until its next action. */
  rewards: number[];
  /** Everything it got in the episode (an agent the environment plays too). */
  return: number;
  /** The session's steps that were its actions, 1-based, in order. */
  steps: number[];
  /** With groups: its advantage in its group, of its own return against the other copies' same agent. */
  advantage?: number | null;
  /** With `modelGateway`: the model calls made for its decisions, as training sequences. */
  token_sequences?: TokenSequence[] | null;
}

/** Progress of a run, reported after every step and every episode. */
export interface RolloutProgress {
  total: number;
  /** Episodes finished, with or without an error. */
  done: number;
  errors: number;
  running: number;
  steps: number;
  elapsed_ms: number;
  steps_per_second: number;
  /** Mean return of the episodes finished without an error; null before the first. */
  mean_return: number | null;
}

export interface RolloutSummary extends RolloutProgress {
  /** Sessions that could not be deleted. */
  undeleted: number;
  /** Population standard deviation of those returns; null before the first. */
  return_std: number | null;
  /** Episodes the environment ended (done, not truncated) with a positive return. */
  successes: number;
  /** Episodes that stopped on an error, by error code. */
  error_codes: Record<string, number>;
  /** With `groupSize`: each group's returns. */
  groups?: GroupSummary[];
  /** With `groupSize`: groups whose returns had no spread (all advantages 0: no signal for GRPO). */
  flat_groups?: number;
  /**
   * With `groupSize`: of the groups with at least two episodes scored, the
   * share whose returns were not all equal (the groups a group-relative
   * update learns from); null when there were none.
   */
  signal_share?: number | null;
  /** With a group judge: groups it could not score. */
  judge_errors?: number;
}

export interface GroupSummary {
  group_id: number;
  episodes: number;
  errors: number;
  /** Of the episodes without an error; null when none. */
  mean_return: number | null;
  return_std: number | null;
  /** At least two episodes scored, all alike: no signal for a group-relative method (GRPO). */
  flat: boolean;
  successes: number;
}
