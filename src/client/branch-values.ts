/**
 * @module Tree rollouts: after an episode, its session is forked at chosen
 * past steps and the policy plays continuations from each. The mean of a
 * branch point's continuation returns is the Monte Carlo value of the
 * state the episode was in there (VinePPO's estimate), and each step's
 * advantage is its reward plus the value after it, less the value before.
 */

import type { Message } from "../messages/schema";
import { ActionSchema } from "../protocol";
import type { Policy, PolicyContext } from "./policy";
import type { RoostSession } from "./session-client";
import type { Trajectory } from "./trajectory";

/** Where a rollout branches, and how many continuations each point plays. */
export interface BranchOptions {
  /** Continuations played from each branch point (at least 1). */
  continuations: number;
  /** Branch after every `every`-th step (1: after each step). */
  every?: number;
  /** Or the steps to branch after, chosen from the episode as played. */
  at?: (trajectory: Trajectory) => number[];
}

/** One branch point: the state right after `step`, and what playing on from it returned. */
export interface BranchPoint {
  step: number;
  /** Each continuation's return: its rewards from step `step + 1` on. */
  returns: number[];
  /** Their mean: the Monte Carlo value of the state after `step`. */
  value: number;
  /** Continuations that failed (an error, not a return), left out of the mean. */
  errors?: { code: string; message: string }[];
}

/** The steps an episode branches after: 1 to its last step but one. */
export const branchSteps = (
  trajectory: Trajectory,
  options: BranchOptions
): number[] => {
  const last = trajectory.actions.length;
  const chosen =
    options.at?.(trajectory) ??
    Array.from(
      { length: Math.floor((last - 1) / Math.max(1, options.every ?? 1)) },
      (_, i) => (i + 1) * Math.max(1, options.every ?? 1)
    );
  return [...new Set(chosen)]
    .filter((s) => Number.isInteger(s) && s >= 1 && s < last)
    .sort((a, b) => a - b);
};

/** The conversation up to the state after `step`: what the policy was shown there. */
const historyAt = (trajectory: Trajectory, step: number): Message[] =>
  trajectory.observations
    .slice(0, step)
    .flatMap((obs, i) => [...obs, trajectory.actions[i]! as Message]);

/** Plays one continuation of a copy to the episode's end; answers its return. */
const playOn = async (
  copy: RoostSession,
  trajectory: Trajectory,
  step: number,
  policy: Policy,
  maxSteps: number,
  context: (copy: RoostSession) => PolicyContext
): Promise<number> => {
  let observations = trajectory.observations[step]!;
  const history = historyAt(trajectory, step);
  let total = 0;
  for (let taken = step; taken < maxSteps; taken++) {
    const decided = await policy(
      observations,
      trajectory.tools,
      history,
      context(copy)
    );
    const action = ActionSchema().parse(
      typeof decided === "object" && decided !== null && "action" in decided
        ? decided.action
        : decided
    );
    const result = await copy.step(action);
    history.push(...observations, action as Message);
    observations = result.observations;
    total += result.reward;
    if (result.done || result.truncated) break;
  }
  return total;
};

const describe = (error: unknown) => ({
  code: (error as { code?: string }).code ?? "policy_error",
  message: error instanceof Error ? error.message : String(error)
});

/**
 * Forks `session` at each branch point and plays `continuations` from it
 * (the copies deleted after), then fills the trajectory's `branches` and
 * `step_advantages`. Call before the session is deleted.
 */
export const branchValues = async (
  session: RoostSession,
  trajectory: Trajectory,
  options: BranchOptions,
  run: {
    policy: Policy;
    maxSteps: number;
    context: (copy: RoostSession) => PolicyContext;
  }
): Promise<void> => {
  const points: BranchPoint[] = [];
  for (const step of branchSteps(trajectory, options)) {
    const copies = await session.fork(Math.max(1, options.continuations), {
      step
    });
    const played = await Promise.allSettled(
      copies.map(async (copy) => {
        try {
          return await playOn(
            copy,
            trajectory,
            step,
            run.policy,
            run.maxSteps,
            run.context
          );
        } finally {
          await copy.delete().catch(() => undefined);
        }
      })
    );
    const returns = played.flatMap((p) =>
      p.status === "fulfilled" ? [p.value] : []
    );
    const errors = played.flatMap((p) =>
      p.status === "rejected" ? [describe(p.reason)] : []
    );
    points.push({
      step,
      returns,
      value:
        returns.length === 0
          ? Number.NaN
          : returns.reduce((s, r) => s + r, 0) / returns.length,
      ...(errors.length === 0 ? {} : { errors })
    });
  }
  trajectory.branches = points;
  trajectory.step_advantages = stepAdvantages(trajectory, points);
};

/**
 * Each step's advantage, `reward + V(after) − V(before)`, where both
 * values are known: V after the last step is 0 when the episode ended
 * (done), unknown when it was truncated; V before the first step is
 * unknown (a fork at step 0 is a reset). Null where a value is missing.
 */
export const stepAdvantages = (
  trajectory: Trajectory,
  points: readonly BranchPoint[]
): (number | null)[] => {
  const value = new Map<number, number>();
  for (const p of points)
    if (Number.isFinite(p.value)) value.set(p.step, p.value);
  const last = trajectory.actions.length;
  if (trajectory.done) value.set(last, 0);
  return trajectory.rewards.map((reward, i) => {
    const before = value.get(i);
    const after = value.get(i + 1);
    return before === undefined || after === undefined
      ? null
      : reward + after - before;
  });
};
