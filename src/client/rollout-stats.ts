/** @module What a rollout's returns say: mean, spread, successes, per run and per group. */

import type { GroupSummary, RolloutSummary, Trajectory } from "./trajectory";

/** Ended by the environment (done, not truncated) with a positive return. */
export const succeeded = (t: Trajectory): boolean =>
  t.done && !t.truncated && t.return > 0;

/**
 * The returns of the trajectories that ended without an error: their mean,
 * population standard deviation (two passes, so equal returns give exactly
 * 0), and whether at least two of them and all alike ("flat": no signal for
 * a group-relative method such as GRPO).
 */
export const returnStats = (trajectories: readonly Trajectory[]) => {
  const returns = trajectories
    .filter((t) => t.error === null)
    .map((t) => t.return);
  if (returns.length === 0)
    return { scored: 0, mean: null, std: null, flat: false };
  const mean = returns.reduce((a, r) => a + r, 0) / returns.length;
  const std = Math.sqrt(
    returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length
  );
  const flat = returns.length >= 2 && returns.every((r) => r === returns[0]);
  return { scored: returns.length, mean, std, flat };
};

/** Each group's returns, in group order. */
export const summariseGroups = (
  trajectories: readonly Trajectory[]
): GroupSummary[] => {
  const groups = new Map<number, Trajectory[]>();
  for (const t of trajectories) {
    if (t.group_id === null) continue;
    groups.set(t.group_id, [...(groups.get(t.group_id) ?? []), t]);
  }
  return [...groups]
    .sort(([a], [b]) => a - b)
    .map(([group_id, members]) => {
      const stats = returnStats(members);
      return {
        group_id,
        episodes: members.length,
        errors: members.length - stats.scored,
        mean_return: stats.mean,
        return_std: stats.std,
        flat: stats.flat,
        successes: members.filter((t) => t.error === null && succeeded(t))
          .length
      };
    });
};

/**
 * The summary's group figures: each group, how many had no spread (they
 * teach a group-relative update nothing: every advantage is 0), and with
 * a judge, how many groups it could not score.
 */
export const groupFigures = (
  trajectories: readonly Trajectory[],
  judgeErrors: number | undefined
): Pick<
  RolloutSummary,
  "groups" | "flat_groups" | "signal_share" | "judge_errors"
> => {
  const groups = summariseGroups(trajectories);
  const flat = groups.filter((g) => g.flat).length;
  // A group with fewer than two scored episodes is neither flat nor not.
  const judged = groups.filter((g) => g.episodes - g.errors >= 2).length;
  return {
    groups,
    flat_groups: flat,
    signal_share: judged === 0 ? null : (judged - flat) / judged,
    ...(judgeErrors === undefined ? {} : { judge_errors: judgeErrors })
  };
};
