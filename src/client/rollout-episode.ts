/** @module One episode of a rollout, or one group of episodes forked from a single reset: sessions, the policy loop, the trajectory. */

import type { JsonValue } from "../json";
import { withStringArguments } from "../messages/build";
import type { Message } from "../messages/schema";
import {
  type ActionInput,
  ActionSchema,
  type EnvironmentInfo,
  type ResetResponse
} from "../protocol";
import { branchValues } from "./branch-values";
import { toChatMessages } from "./chat-format";
import { RoostClientError } from "./client-error";
import type { RoostClient } from "./http";
import { tokenSequences, tokenTurns } from "./model-tokens";
import type { PolicyContext, PolicyDecision, TokenUsage } from "./policy";
import type { RolloutOptions } from "./rollout";
import { agentTokenSequences, playAgents } from "./rollout-agents";
import type { RoostSession } from "./session-client";
import type { Trajectory } from "./trajectory";

const now = (): number => performance.now();
/** Milliseconds to 0.01, so trajectories stay readable. */
const ms = (value: number): number => Math.round(value * 100) / 100;

export interface EpisodeContext {
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
  const { taskIndex, split } = context.options;
  if (typeof taskIndex === "number") return taskIndex;
  if (typeof taskIndex === "function") return taskIndex(index);
  const { size, generated } = datasetOf(context.info, split);
  // A generated dataset has no end: episode i is seed i.
  if (generated) return index;
  return size ? index % size : undefined;
};

/** The size of the dataset (or `split`) episodes pick from, or that it is generated. */
export const datasetOf = (
  info: EnvironmentInfo,
  split: string | undefined
): { size: number | undefined; generated: boolean } => {
  if (split === undefined) {
    return {
      size: info.dataset_size,
      generated: info.dataset_generated === true
    };
  }
  const found = info.splits?.find((s) => s.name === split);
  if (found === undefined) {
    throw new RoostClientError(
      "invalid_request",
      `Environment ${info.name} has no split "${split}"; its splits: ${info.splits?.map((s) => s.name).join(", ") || "none"}.`,
      400
    );
  }
  return { size: found.size, generated: found.generated };
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
  split: taskIndex === undefined ? null : (context.options.split ?? null),
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
  reward_components: [],
  return: 0,
  advantage: null,
  group_mean: null,
  group_std: null,
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
    ...(taskIndex === undefined ? {} : { task_index: taskIndex }),
    ...(taskIndex === undefined || context.options.split === undefined
      ? {}
      : { split: context.options.split })
  });

export const runEpisode = async (
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
    await branch(session, trajectory, context);
  } catch (error) {
    trajectory.error = describe(error);
  } finally {
    await finish(
      session,
      trajectory,
      started,
      context.options.modelGateway === true
    );
  }
  return trajectory;
};

/**
 * One group: a session reset once, forked into `size − 1` copies, and one
 * episode on each, all from the same first observation. If making the
 * group fails, every member records that error.
 */
export const runGroup = async (
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
        await finish(
          sessions[k],
          t,
          started,
          context.options.modelGateway === true
        );
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
        await branch(sessions[k]!, t, context);
      } catch (error) {
        t.error = describe(error);
      } finally {
        await finish(
          sessions[k],
          t,
          started,
          context.options.modelGateway === true
        );
      }
      return t;
    })
  );
};

/** What a decision on `session` is told: its model gateway, when the run asks. */
const policyContext = (
  session: RoostSession,
  context: EpisodeContext
): PolicyContext =>
  context.options.modelGateway
    ? {
        gateway: {
          baseUrl: `${context.options.baseUrl.replace(/\/+$/, "")}/v1/sessions/${session.id}/model/v1`,
          apiKey: session.token
        }
      }
    : {};

/** A tree rollout's continuations from the episode's past steps, when the run asks. */
const branch = async (
  session: RoostSession,
  trajectory: Trajectory,
  context: EpisodeContext
): Promise<void> => {
  const options = context.options.branches;
  if (options === undefined) return;
  await branchValues(session, trajectory, options, {
    policy: context.options.policy,
    maxSteps: context.maxSteps,
    context: (copy) => policyContext(copy, context)
  });
};

/** Steps the policy from the reset's observations until the episode ends. */
const play = async (
  session: RoostSession,
  reset: ResetResponse,
  trajectory: Trajectory,
  context: EpisodeContext
): Promise<void> => {
  trajectory.tools = reset.tools;
  trajectory.observations.push(reset.observations);
  // The session's own record of each step, whoever's it was.
  const stepAs = async (
    agent: string | undefined,
    decided: ActionInput | PolicyDecision
  ) => {
    const decision = isDecision(decided) ? decided : { action: decided };
    const parsed = ActionSchema().parse(decision.action);
    // One form whatever the policy wrote: OpenAI's JSON-string arguments,
    // as a model produces them and as the trajectory's messages carry them.
    const action =
      parsed.tool_calls === undefined
        ? parsed
        : { ...parsed, tool_calls: withStringArguments(parsed.tool_calls) };
    if (decision.usage)
      trajectory.usage = addUsage(trajectory.usage, decision.usage);
    if (decision.retries) trajectory.model_retries.push(...decision.retries);
    const stepStarted = now();
    const result = await session.step(
      action,
      agent === undefined ? {} : { agent }
    );
    trajectory.step_ms.push(ms(now() - stepStarted));
    trajectory.actions.push(action);
    trajectory.observations.push(result.observations);
    trajectory.rewards.push(result.reward);
    trajectory.reward_components.push(result.reward_components ?? null);
    trajectory.return += result.reward;
    trajectory.done = result.done;
    trajectory.truncated = result.truncated;
    context.onStep();
    return { action, result };
  };
  const agents = context.info.agents;
  if (agents !== undefined) {
    await playAgents(session, reset, trajectory, {
      agents,
      policies: context.options.policies,
      policy: context.options.policy,
      maxSteps: context.maxSteps,
      context: policyContext(session, context),
      stepAs,
      ...(context.options.signal === undefined
        ? {}
        : { signal: context.options.signal })
    });
    return;
  }
  let observations: Message[] = reset.observations;
  const history: Message[] = [];
  while (!trajectory.done && !trajectory.truncated) {
    if (trajectory.actions.length >= context.maxSteps) {
      trajectory.truncated = true;
      break;
    }
    context.options.signal?.throwIfAborted();
    const decided = await context.options.policy(
      observations,
      reset.tools,
      history,
      policyContext(session, context)
    );
    const { action, result } = await stepAs(undefined, decided);
    history.push(...observations, action);
    observations = result.observations;
  }
};

/** The chat-format messages, the session deleted (also after an error), the duration. */
const finish = async (
  session: RoostSession | undefined,
  trajectory: Trajectory,
  started: number,
  /** Whether the model's calls went through the session's gateway: read them before the delete. */
  gateway = false
): Promise<void> => {
  trajectory.messages = toChatMessages([
    ...trajectory.observations.flatMap((obs, i) =>
      i < trajectory.actions.length ? [...obs, trajectory.actions[i]!] : obs
    )
  ]);
  if (session && gateway) {
    try {
      const turns = tokenTurns(await session.modelCallsOf());
      trajectory.token_sequences =
        turns.length === 0 ? null : tokenSequences(turns);
      if (trajectory.agents) agentTokenSequences(trajectory.agents, turns);
    } catch (error) {
      trajectory.error ??= describe(error);
    }
  }
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
