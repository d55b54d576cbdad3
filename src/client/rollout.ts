/** @module `rollout`: many episodes of a policy against a Roost server, concurrently, each in its own session. */

import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import {
  type ActionInput,
  ActionSchema,
  type EnvironmentInfo,
  MAX_FORK_COUNT,
  type ResetResponse
} from "../protocol";
import { toChatMessages } from "./chat-format";
import { RoostClientError } from "./client-error";
import { createClient, type RoostClient } from "./http";
import type { Policy, PolicyDecision, TokenUsage } from "./policy";
import type { RoostSession } from "./session-client";
import type {
  GroupSummary,
  RolloutProgress,
  RolloutSummary,
  Trajectory
} from "./trajectory";
import type { FetchLike } from "./transport";

export interface RolloutOptions {
  baseUrl: string;
  environment: string;
  policy: Policy;
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

  const record = (trajectory: Trajectory) => {
    trajectories[trajectory.episode] = trajectory;
    tally.done++;
    if (trajectory.error) {
      tally.errors++;
      const code = trajectory.error.code;
      tally.codes[code] = (tally.codes[code] ?? 0) + 1;
    } else {
      tally.returns += trajectory.return;
      tally.squares += trajectory.return ** 2;
      tally.scored++;
      if (succeeded(trajectory)) tally.successes++;
    }
    if (trajectory.session_id && !trajectory.deleted) tally.undeleted++;
    options.onEpisode?.(trajectory);
    report();
  };

  const size = groupSizeOf(options);
  const units = Math.ceil(options.episodes / size);
  let next = 0;
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted || next >= units) return;
      const unit = next++;
      const first = unit * size;
      const members = Math.min(size, options.episodes - first);
      tally.running += members;
      const done =
        size === 1
          ? runEpisode(first, episode).then((t) => [t])
          : runGroup(unit, first, members, episode);
      for (const trajectory of await done) {
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
    summary: {
      ...progress(),
      undeleted: tally.undeleted,
      return_std: spread(tally),
      successes: tally.successes,
      error_codes: tally.codes,
      ...(size > 1 ? { groups: summariseGroups(finished) } : {})
    }
  };
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

const succeeded = (t: Trajectory): boolean =>
  t.done && !t.truncated && t.return > 0;

/**
 * Each group's returns: a group whose episodes all scored the same gives a
 * group-relative method (GRPO) no signal, so their number is reported.
 */
const summariseGroups = (trajectories: Trajectory[]): GroupSummary[] => {
  const groups = new Map<number, Trajectory[]>();
  for (const t of trajectories) {
    if (t.group_id === null) continue;
    groups.set(t.group_id, [...(groups.get(t.group_id) ?? []), t]);
  }
  return [...groups].map(([group_id, members]) => {
    const returns = members
      .filter((t) => t.error === null)
      .map((t) => t.return);
    const mean =
      returns.length > 0
        ? returns.reduce((a, r) => a + r, 0) / returns.length
        : null;
    return {
      group_id,
      episodes: members.length,
      errors: members.length - returns.length,
      mean_return: mean,
      // Two passes: running sums could leave a flat group a hair above 0.
      return_std:
        mean === null
          ? null
          : Math.sqrt(
              returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length
            ),
      flat: returns.length >= 2 && returns.every((r) => r === returns[0]),
      successes: members.filter((t) => t.error === null && succeeded(t)).length
    };
  });
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

const newTrajectory = (
  index: number,
  context: EpisodeContext,
  task: JsonValue | undefined,
  taskIndex: number | undefined,
  group: { id: number; index: number } | null
): Trajectory => ({
  episode: index,
  environment: context.options.environment,
  task: task ?? null,
  session_id: null,
  task_index: taskIndex ?? null,
  group_id: group?.id ?? null,
  group_index: group?.index ?? null,
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
});

/** The task of an episode, or of a group (the `index` is then the group's). */
const taskOf = (index: number, context: EpisodeContext) => {
  const task = context.options.task?.(index);
  const taskIndex =
    task === undefined ? taskIndexOf(index, context) : undefined;
  return { task, taskIndex };
};

const createFor = (
  context: EpisodeContext,
  { task, taskIndex }: ReturnType<typeof taskOf>
): Promise<RoostSession> =>
  context.client.createSession({
    environment: context.options.environment,
    ...(task === undefined ? {} : { task }),
    ...(taskIndex === undefined ? {} : { task_index: taskIndex })
  });

const runEpisode = async (
  index: number,
  context: EpisodeContext
): Promise<Trajectory> => {
  const started = now();
  const task = taskOf(index, context);
  const trajectory = newTrajectory(
    index,
    context,
    task.task,
    task.taskIndex,
    null
  );
  let session: RoostSession | undefined;
  try {
    session = await createFor(context, task);
    trajectory.session_id = session.id;
    const resetStarted = now();
    const reset = await session.reset();
    trajectory.reset_ms = ms(now() - resetStarted);
    await play(session, reset, trajectory, context);
  } catch (error) {
    trajectory.error = describe(error);
  } finally {
    await finish(session, trajectory, started);
  }
  return trajectory;
};

/**
 * One group: a session reset once, forked into `size − 1` copies, and one
 * episode on each, all from the same first observation. If making the
 * group fails, every member records that error.
 */
const runGroup = async (
  group: number,
  first: number,
  size: number,
  context: EpisodeContext
): Promise<Trajectory[]> => {
  const started = now();
  const task = taskOf(group, context);
  const trajectories = Array.from({ length: size }, (_, k) =>
    newTrajectory(first + k, context, task.task, task.taskIndex, {
      id: group,
      index: k
    })
  );
  let sessions: RoostSession[] = [];
  let reset: ResetResponse;
  try {
    const source = await createFor(context, task);
    sessions = [source];
    trajectories[0]!.session_id = source.id;
    const resetStarted = now();
    reset = await source.reset();
    sessions.push(...(size > 1 ? await source.fork(size - 1) : []));
    const resetMs = ms(now() - resetStarted);
    for (const [k, t] of trajectories.entries()) {
      t.session_id = sessions[k]!.id;
      t.reset_ms = resetMs;
    }
  } catch (error) {
    const failed = describe(error);
    return Promise.all(
      trajectories.map(async (t, k) => {
        t.error = failed;
        await finish(sessions[k], t, started);
        return t;
      })
    );
  }
  return Promise.all(
    trajectories.map(async (t, k) => {
      try {
        // Each member its own copy: a policy that edits what it is given
        // must not change what its siblings see.
        await play(sessions[k]!, structuredClone(reset), t, context);
      } catch (error) {
        t.error = describe(error);
      } finally {
        await finish(sessions[k], t, started);
      }
      return t;
    })
  );
};

/** Steps the policy from the reset's observations until the episode ends. */
const play = async (
  session: RoostSession,
  reset: ResetResponse,
  trajectory: Trajectory,
  context: EpisodeContext
): Promise<void> => {
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
};

/** The chat-format messages, the session deleted (also after an error), the duration. */
const finish = async (
  session: RoostSession | undefined,
  trajectory: Trajectory,
  started: number
): Promise<void> => {
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
