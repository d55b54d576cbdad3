/** @module `rollout`: many episodes of a policy against a Roost server, concurrently, each in its own session. */

import type { JsonValue } from "../json";
import { MAX_FORK_COUNT } from "../protocol";
import type { BranchOptions } from "./branch-values";
import { RoostClientError } from "./client-error";
import { type AdvantageOptions, groupAdvantages } from "./group-advantages";
import { type GroupJudgeOptions, judgeGroup } from "./group-judge";
import { createClient, type RoostClient } from "./http";
import type { Policy } from "./policy";
import type { FetchLike } from "./request";
import { agentAdvantages, checkPolicies } from "./rollout-agents";
import { datasetOf, runEpisode, runGroup } from "./rollout-episode";
import { groupFigures, returnStats, succeeded } from "./rollout-stats";
import { SAMPLERS, type SamplerKind, taskSampler } from "./task-sampler";
import { TaskStats } from "./task-stats";
import type { RolloutProgress, RolloutSummary, Trajectory } from "./trajectory";

export interface RolloutOptions {
  baseUrl: string;
  environment: string;
  policy: Policy;
  /**
   * A multi-agent environment's policies by agent: an agent not named
   * here is played by `policy` (all of them by it: self-play). Agents the
   * environment plays need none.
   */
  policies?: Record<string, Policy>;
  episodes: number;
  /** Episodes in flight at once (default 4); with groups, whole groups, as many as fit (at least one). */
  concurrency?: number;
  /**
   * Episodes per group (default 1: no groups). A group resets one session
   * and forks it `groupSize − 1` times, so its episodes start from one
   * identical state (what GRPO and best-of-n need); each trajectory carries
   * `group_id` and `group_index`. With groups, `task` and `taskIndex`
   * functions are called with the group number, and by default group `g`
   * gets dataset index `g % dataset_size`.
   */
  groupSize?: number;
  /**
   * With groups: how each trajectory's `advantage` is computed from its
   * group's returns (default: population std, ε = 1e-6). Computed when a
   * group ends, before its trajectories reach `onEpisode`.
   */
  advantages?: AdvantageOptions<Trajectory>;
  /**
   * With groups: a chat model that scores each group's trajectories
   * against each other (`group_score`, `rank`), one call per group, before
   * they reach `onEpisode`. Its failure is recorded, never thrown.
   */
  groupJudge?: GroupJudgeOptions;
  /**
   * Send the policy's model calls through each session's model gateway
   * (the server's `modelGateway()` layer and its upstream): the session
   * records them with their token ids, and each trajectory carries them as
   * `token_sequences`. The policy gets the gateway in its context
   * (`openaiPolicy` uses it by itself).
   */
  modelGateway?: boolean;
  /**
   * Tree rollouts: after each episode, fork its session at chosen past
   * steps (`every` k, or the ones `at` picks) and play `continuations`
   * from each with the same policy; each trajectory gets `branches` (per
   * point, the returns and their mean, the state's Monte Carlo value) and
   * `step_advantages`. The environment must be branchable.
   */
  branches?: BranchOptions;
  /** Steps per episode before the run truncates it (default: the environment's, else 100). */
  maxSteps?: number;
  /**
   * The dataset index of each episode: a number for all, or per episode.
   * Default: episode `i` gets index `i % dataset_size` when the
   * environment has a dataset, else its default task.
   */
  taskIndex?: number | ((episode: number) => number | undefined);
  /**
   * The named split episodes pick their tasks from (`train`, `eval`, …);
   * default: the environment's dataset. In a generated split episode `i`
   * is seed `i`; in a finite one, index `i % size`.
   */
  split?: string;
  /** A task per episode instead of a dataset index. */
  task?: (episode: number) => JsonValue | undefined;
  /**
   * How each episode (with groups: each group) picks its dataset index
   * when neither `taskIndex` nor `task` says: `sequential` (the default,
   * `i % dataset_size`), `uniform` (at random, seeded by `seed`), or
   * `curriculum` (weighted by P(signal) = 1 − p^G − (1 − p)^G from the
   * task's pass rate so far, see `taskStats`).
   */
  sampler?: SamplerKind;
  /** Seeds `uniform` and `curriculum`, so a run can be repeated (default: a random seed). */
  seed?: number;
  /**
   * Sample from indexes 0 … taskCount − 1 only (default: the whole
   * dataset or split; for a generated one, which has no end, seeds
   * 0 … 999).
   */
  taskCount?: number;
  /**
   * The curriculum's per-task successes and attempts, kept by this client.
   * Pass one to continue a previous run's statistics
   * (`TaskStats.from(file)`); it is updated in place as groups end, and
   * returned in the result either way. Without it, `curriculum` draws from
   * the server's statistics instead (`POST
   * /v1/environments/:name/task-stats/sample`), which every runner of the
   * environment shares and which count successes at the environment's
   * own threshold, not `successThreshold`.
   */
  taskStats?: TaskStats;
  /** A return at or above this counts as a success in `taskStats` (default 1, the usual maximum). */
  successThreshold?: number;
  onProgress?: (progress: RolloutProgress) => void;
  /** Each trajectory as soon as its episode (with groups: its group) ends, in completion order. */
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
  /** Every episode's outcome by task, with what `taskStats` held before the run. */
  taskStats: TaskStats;
}

const now = (): number => performance.now();

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
  const environments = await client.environments();
  const info = environments.find((e) => e.name === options.environment);
  if (!info) {
    // As the server's own 404 says it: the names in the message, and in
    // details for a program.
    const names = environments.map((e) => e.name);
    throw new RoostClientError(
      "not_found",
      names.length === 0
        ? `The server has no environment "${options.environment}": it has none.`
        : `The server has no environment "${options.environment}". It has: ${names.join(", ")}.`,
      404,
      { environment: options.environment, environments: names }
    );
  }
  // An unknown split fails the run here, not every episode.
  const dataset = datasetOf(info, options.split);
  // So does a policy for an agent no client plays.
  checkPolicies(info, options.policies);
  const size = groupSizeOf(options);
  const taskStats = options.taskStats ?? new TaskStats();
  const sampled = samplerFor(options, dataset, size, taskStats, client);
  const started = now();
  const trajectories: Trajectory[] = new Array(options.episodes);
  const tally = {
    done: 0,
    errors: 0,
    running: 0,
    steps: 0,
    returns: 0,
    scored: 0,
    successes: 0,
    undeleted: 0,
    judgeErrors: 0,
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

  const record = (trajectory: Trajectory) => {
    trajectories[trajectory.episode] = trajectory;
    tally.done++;
    if (trajectory.error) {
      tally.errors++;
      const code = trajectory.error.code;
      tally.codes[code] = (tally.codes[code] ?? 0) + 1;
    } else {
      tally.returns += trajectory.return;
      tally.scored++;
      if (succeeded(trajectory)) tally.successes++;
    }
    if (trajectory.session_id && !trajectory.deleted) tally.undeleted++;
    options.onEpisode?.(trajectory);
    report();
  };

  const threshold = options.successThreshold ?? 1;
  const units = Math.ceil(options.episodes / size);
  let next = 0;
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted || next >= units) return;
      const unit = next++;
      const first = unit * size;
      const members = Math.min(size, options.episodes - first);
      // Drawn when the unit starts: a group's members share the index.
      const context =
        sampled === undefined
          ? episode
          : {
              ...episode,
              options: { ...options, taskIndex: await sampled(unit) }
            };
      tally.running += members;
      const done =
        size === 1
          ? runEpisode(first, context).then((t) => [t])
          : runGroup(unit, first, members, context);
      const finished = await done;
      if (size > 1) await scoreGroup(finished, options);
      if (finished[0]?.group_judge_error) tally.judgeErrors++;
      // Episodes that failed on an error say nothing about the task.
      for (const t of finished)
        if (t.error === null && t.task_index !== null)
          taskStats.add(
            t.split,
            t.task_index,
            1,
            t.return >= threshold ? 1 : 0
          );
      for (const trajectory of finished) {
        tally.running--;
        record(trajectory);
      }
    }
  };
  const workers = Math.max(
    1,
    Math.min(Math.floor((options.concurrency ?? 4) / size) || 1, units)
  );
  await Promise.all(Array.from({ length: workers }, worker));
  const finished = trajectories.filter((t) => t !== undefined);
  return {
    trajectories: finished,
    taskStats,
    summary: {
      ...progress(),
      undeleted: tally.undeleted,
      return_std: returnStats(finished).std,
      successes: tally.successes,
      error_codes: tally.codes,
      ...(size > 1
        ? groupFigures(
            finished,
            options.groupJudge ? tally.judgeErrors : undefined
          )
        : {})
    }
  };
};

/**
 * A finished group's judge's scores, then its advantages, written into
 * its trajectories: judged first, so advantages may be of `group_score`.
 */
const scoreGroup = async (
  members: Trajectory[],
  options: RolloutOptions
): Promise<void> => {
  if (options.groupJudge) await judgeGroup(members, options.groupJudge);
  const { trajectories } = groupAdvantages(members, options.advantages);
  for (const [i, t] of members.entries()) {
    t.advantage = trajectories[i]!.advantage;
    t.group_mean = trajectories[i]!.group_mean;
    t.group_std = trajectories[i]!.group_std;
  }
  agentAdvantages(members, options.advantages);
};

/** Seeds of a generated dataset a sampler draws from when `taskCount` does not say. */
const GENERATED_SEEDS = 1000;

/** The index each unit plays under a random or curriculum sampler, or undefined for today's order. */
const samplerFor = (
  options: RolloutOptions,
  dataset: ReturnType<typeof datasetOf>,
  groupSize: number,
  stats: TaskStats,
  client: RoostClient
): ((unit: number) => number | Promise<number>) | undefined => {
  const kind = options.sampler ?? "sequential";
  const refuse = (message: string) => {
    throw new RoostClientError("invalid_request", message, 400);
  };
  if (!SAMPLERS.includes(kind))
    refuse(`sampler must be one of ${SAMPLERS.join(", ")}, got "${kind}".`);
  if (kind === "sequential" && options.taskCount === undefined)
    return undefined;
  if (options.taskIndex !== undefined || options.task !== undefined)
    refuse(
      `sampler "${kind}" picks the dataset index itself: leave out taskIndex and task.`
    );
  const available = dataset.generated ? undefined : dataset.size;
  if (!dataset.generated && available === undefined)
    refuse(
      `sampler "${kind}" needs a dataset, and environment ${options.environment} has none.`
    );
  const count = options.taskCount ?? available ?? GENERATED_SEEDS;
  if (
    !Number.isSafeInteger(count) ||
    count < 1 ||
    (available !== undefined && count > available)
  )
    refuse(
      `taskCount must be a whole number from 1 to ${available ?? "any size"}, got ${count}.`
    );
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  if (kind === "curriculum" && options.taskStats === undefined)
    return serverSampler(options, client, { seed, groupSize, count });
  return taskSampler({
    kind,
    count,
    seed,
    groupSize,
    stats,
    split: options.split ?? null
  });
};

/**
 * The curriculum on the server's statistics: one drawn index per unit,
 * asked for when the unit starts, so it sees every episode that ended
 * before, this run's and every other runner's. Each draw's seed is the
 * run's mixed with the unit's number: a run with the same seed against
 * the same statistics draws the same indexes.
 */
const serverSampler =
  (
    options: RolloutOptions,
    client: RoostClient,
    draw: { seed: number; groupSize: number; count: number }
  ) =>
  async (unit: number): Promise<number> => {
    const { task_indices } = await client.sampleTasks(options.environment, {
      ...(options.split === undefined ? {} : { split: options.split }),
      group_size: draw.groupSize,
      count: 1,
      seed: (draw.seed + Math.imul(unit + 1, 0x9e3779b1)) >>> 0,
      task_count: draw.count
    });
    return task_indices[0]!;
  };

const groupSizeOf = (options: RolloutOptions): number => {
  const size = options.groupSize ?? 1;
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_FORK_COUNT + 1) {
    throw new RoostClientError(
      "invalid_request",
      `groupSize must be a whole number from 1 to ${MAX_FORK_COUNT + 1}, got ${size}.`,
      400
    );
  }
  return size;
};
