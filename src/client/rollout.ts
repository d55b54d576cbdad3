/** @module `rollout`: many episodes of a policy against a Roost server, concurrently, each in its own session. */

import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import {
  type ActionInput,
  ActionSchema,
  type EnvironmentInfo
} from "../protocol";
import { toChatMessages } from "./chat-format";
import { RoostClientError } from "./client-error";
import { createClient, type RoostClient } from "./http";
import type { Policy, PolicyDecision, TokenUsage } from "./policy";
import type { RoostSession } from "./session-client";
import type { RolloutProgress, RolloutSummary, Trajectory } from "./trajectory";
import type { FetchLike } from "./transport";

export interface RolloutOptions {
  baseUrl: string;
  environment: string;
  policy: Policy;
  episodes: number;
  /** Episodes in flight at once (default 4). */
  concurrency?: number;
  /** Steps per episode before the run truncates it (default: the environment's, else 100). */
  maxSteps?: number;
  /**
   * The dataset index of each episode: a number for all, or per episode.
   * Default: episode `i` gets index `i % dataset_size` when the
   * environment has a dataset, else its default task.
   */
  taskIndex?: number | ((episode: number) => number | undefined);
  /** A task per episode instead of a dataset index. */
  task?: (episode: number) => JsonValue | undefined;
  onProgress?: (progress: RolloutProgress) => void;
  /** Each trajectory as soon as its episode ends (in completion order). */
  onEpisode?: (trajectory: Trajectory) => void;
  apiKey?: string;
  fetch?: FetchLike;
  /** Stops starting episodes and ends running ones after their current step. */
  signal?: AbortSignal;
}

export interface RolloutResult {
  /** In episode order. */
  trajectories: Trajectory[];
  summary: RolloutSummary;
}

const now = (): number => performance.now();
/** Milliseconds to 0.01, so trajectories stay readable. */
const ms = (value: number): number => Math.round(value * 100) / 100;

/**
 * Runs `episodes` episodes, `concurrency` at a time. Every session is
 * deleted when its episode ends, also after an error; an episode's error is
 * recorded in its trajectory and never stops the others.
 *
 * @example
 * const { summary } = await rollout({ baseUrl: "http://127.0.0.1:8787",
 *   environment: "calculator", policy: scriptedPolicy, episodes: 50, concurrency: 8 });
 * summary.mean_return; // 1
 */
export const rollout = async (
  options: RolloutOptions
): Promise<RolloutResult> => {
  const client = createClient({
    baseUrl: options.baseUrl,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {})
  });
  const info = (await client.environments()).find(
    (e) => e.name === options.environment
  );
  if (!info) {
    throw new RoostClientError(
      "not_found",
      `The server has no environment "${options.environment}".`,
      404
    );
  }
  const started = now();
  const trajectories: Trajectory[] = new Array(options.episodes);
  const tally = {
    done: 0,
    errors: 0,
    running: 0,
    steps: 0,
    returns: 0,
    squares: 0,
    scored: 0,
    successes: 0,
    undeleted: 0,
    codes: {} as Record<string, number>
  };
  const progress = (): RolloutProgress => {
    const elapsed = now() - started;
    return {
      total: options.episodes,
      done: tally.done,
      errors: tally.errors,
      running: tally.running,
      steps: tally.steps,
      elapsed_ms: Math.round(elapsed),
      steps_per_second: elapsed > 0 ? (tally.steps * 1000) / elapsed : 0,
      mean_return: tally.scored > 0 ? tally.returns / tally.scored : null
    };
  };
  const report = () => options.onProgress?.(progress());
  const episode = {
    client,
    info,
    options,
    maxSteps: options.maxSteps ?? info.max_steps ?? 100,
    onStep: () => {
      tally.steps++;
      report();
    }
  };

  let next = 0;
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted || next >= options.episodes) return;
      const index = next++;
      tally.running++;
      const trajectory = await runEpisode(index, episode);
      tally.running--;
      trajectories[index] = trajectory;
      tally.done++;
      if (trajectory.error) {
        tally.errors++;
        const code = trajectory.error.code;
        tally.codes[code] = (tally.codes[code] ?? 0) + 1;
      } else {
        tally.returns += trajectory.return;
        tally.squares += trajectory.return ** 2;
        tally.scored++;
        if (trajectory.done && !trajectory.truncated && trajectory.return > 0)
          tally.successes++;
      }
      if (trajectory.session_id && !trajectory.deleted) tally.undeleted++;
      options.onEpisode?.(trajectory);
      report();
    }
  };
  const workers = Math.max(
    1,
    Math.min(options.concurrency ?? 4, options.episodes)
  );
  await Promise.all(Array.from({ length: workers }, worker));
  return {
    trajectories: trajectories.filter((t) => t !== undefined),
    summary: {
      ...progress(),
      undeleted: tally.undeleted,
      return_std: spread(tally),
      successes: tally.successes,
      error_codes: tally.codes
    }
  };
};

/** Population standard deviation from running sums; rounding can dip below 0. */
const spread = (t: { returns: number; squares: number; scored: number }) => {
  if (t.scored === 0) return null;
  const mean = t.returns / t.scored;
  return Math.sqrt(Math.max(0, t.squares / t.scored - mean ** 2));
};

interface EpisodeContext {
  client: RoostClient;
  info: EnvironmentInfo;
  options: RolloutOptions;
  maxSteps: number;
  onStep: () => void;
}

const taskIndexOf = (
  index: number,
  context: EpisodeContext
): number | undefined => {
  const { taskIndex } = context.options;
  if (typeof taskIndex === "number") return taskIndex;
  if (typeof taskIndex === "function") return taskIndex(index);
  const size = context.info.dataset_size;
  return size ? index % size : undefined;
};

const runEpisode = async (
  index: number,
  context: EpisodeContext
): Promise<Trajectory> => {
  const started = now();
  const task = context.options.task?.(index);
  const taskIndex =
    task === undefined ? taskIndexOf(index, context) : undefined;
  const trajectory: Trajectory = {
    episode: index,
    environment: context.options.environment,
    task: task ?? null,
    session_id: null,
    task_index: taskIndex ?? null,
    tools: [],
    messages: [],
    policy: context.options.policy.info ?? null,
    usage: null,
    model_retries: [],
    observations: [],
    actions: [],
    rewards: [],
    return: 0,
    done: false,
    truncated: false,
    reset_ms: 0,
    step_ms: [],
    duration_ms: 0,
    error: null,
    deleted: false
  };
  let session: RoostSession | undefined;
  try {
    session = await context.client.createSession({
      environment: context.options.environment,
      ...(task === undefined ? {} : { task }),
      ...(taskIndex === undefined ? {} : { task_index: taskIndex })
    });
    trajectory.session_id = session.id;
    const resetStarted = now();
    const reset = await session.reset();
    trajectory.reset_ms = ms(now() - resetStarted);
    let observations: Message[] = reset.observations;
    const history: Message[] = [];
    trajectory.tools = reset.tools;
    trajectory.observations.push(observations);
    while (!trajectory.done && !trajectory.truncated) {
      if (trajectory.actions.length >= context.maxSteps) {
        trajectory.truncated = true;
        break;
      }
      context.options.signal?.throwIfAborted();
      const decided = await context.options.policy(
        observations,
        reset.tools,
        history
      );
      const decision = isDecision(decided) ? decided : { action: decided };
      const action = ActionSchema.parse(decision.action);
      if (decision.usage)
        trajectory.usage = addUsage(trajectory.usage, decision.usage);
      if (decision.retries) trajectory.model_retries.push(...decision.retries);
      const stepStarted = now();
      const result = await session.step(action);
      trajectory.step_ms.push(ms(now() - stepStarted));
      history.push(...observations, action);
      observations = result.observations;
      trajectory.actions.push(action);
      trajectory.observations.push(observations);
      trajectory.rewards.push(result.reward);
      trajectory.return += result.reward;
      trajectory.done = result.done;
      trajectory.truncated = result.truncated;
      context.onStep();
    }
  } catch (error) {
    trajectory.error = describe(error);
  } finally {
    trajectory.messages = toChatMessages([
      ...trajectory.observations.flatMap((obs, i) =>
        i < trajectory.actions.length ? [...obs, trajectory.actions[i]!] : obs
      )
    ]);
    if (session) {
      try {
        await session.delete();
        trajectory.deleted = true;
      } catch {
        // Left to the idle TTL; counted in the summary.
      }
    }
    trajectory.duration_ms = ms(now() - started);
  }
  return trajectory;
};

const isDecision = (
  value: ActionInput | PolicyDecision
): value is PolicyDecision =>
  typeof value === "object" && value !== null && "action" in value;

const addUsage = (sum: TokenUsage | null, add: TokenUsage): TokenUsage => ({
  prompt_tokens: (sum?.prompt_tokens ?? 0) + add.prompt_tokens,
  completion_tokens: (sum?.completion_tokens ?? 0) + add.completion_tokens,
  total_tokens: (sum?.total_tokens ?? 0) + add.total_tokens
});

const describe = (error: unknown): { code: string; message: string } => {
  if (error instanceof RoostClientError)
    return { code: error.code, message: error.message };
  if (error instanceof Error)
    return {
      code: error.name === "AbortError" ? "aborted" : "policy_error",
      message: error.message
    };
  return { code: "policy_error", message: String(error) };
};
