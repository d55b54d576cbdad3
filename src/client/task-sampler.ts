/**
 * @module Which dataset index a rollout's next episode (or group) plays:
 * in order, uniformly at random, or by a curriculum that favours the tasks
 * whose groups are likely to disagree, the only ones a group-relative
 * update (GRPO) learns from.
 */

import { seededRandom } from "./random-policy";
import type { TaskStats } from "./task-stats";

export type SamplerKind = "sequential" | "uniform" | "curriculum";
export const SAMPLERS: readonly SamplerKind[] = [
  "sequential",
  "uniform",
  "curriculum"
];

/**
 * P(signal) = 1 − p^G − (1 − p)^G: the chance that a group of G episodes
 * of a task with pass rate p is neither all right nor all wrong.
 *
 * @example
 * signalWeight(0.5, 8); // 0.9921875
 * signalWeight(1, 8); // 0
 */
export const signalWeight = (p: number, groupSize: number): number =>
  Math.max(0, 1 - p ** groupSize - (1 - p) ** groupSize);

/**
 * A task's estimated pass rate: the mean of Beta(1 + successes, 1 + failures).
 * The uniform prior makes an untried task p = 0.5, the most promising
 * estimate there is (optimism: it is tried before a known one is repeated),
 * and keeps one lucky group from writing a task off.
 */
export const passRate = (attempts: number, successes: number): number =>
  (successes + 1) / (attempts + 2);

/**
 * The group size the weights assume. Single episodes (G = 1) have no group
 * and so never any "signal"; they are weighted as pairs (G = 2, weight
 * 2p(1 − p)), which still ranks tasks by how uncertain their outcome is.
 */
export const weightGroupSize = (groupSize: number): number =>
  Math.max(2, groupSize);

export interface SamplerOptions {
  kind: SamplerKind;
  /** How many indexes to choose from: 0 … count − 1. */
  count: number;
  /** Seeds the random choices, so a run can be repeated. */
  seed: number;
  groupSize: number;
  /** The curriculum's statistics; read at every draw. */
  stats: TaskStats;
  split: string | null;
}

/**
 * Returns the next index for unit `unit` (an episode, or a group's number).
 * `sequential` is `unit % count`, the order rollouts have always used.
 *
 * @example
 * const next = taskSampler({ kind: "uniform", count: 10, seed: 1, groupSize: 8, stats, split: null });
 * next(0); // a number in 0 … 9, the same one for seed 1 every time
 */
export const taskSampler = (
  options: SamplerOptions
): ((unit: number) => number) => {
  const { kind, count } = options;
  if (kind === "sequential") return (unit) => unit % count;
  const random = seededRandom(options.seed);
  if (kind === "uniform") return () => Math.floor(random() * count);
  const g = weightGroupSize(options.groupSize);
  return () => {
    const weights = new Array<number>(count);
    let total = 0;
    for (let i = 0; i < count; i++) {
      const record = options.stats.get(options.split, i);
      const w = signalWeight(
        passRate(record?.attempts ?? 0, record?.successes ?? 0),
        g
      );
      weights[i] = w;
      total += w;
    }
    return pickWeighted(weights, total, random);
  };
};

/** An index drawn in proportion to its weight; all zero cannot happen (the prior keeps every weight above 0), but would fall back to uniform. */
export const pickWeighted = (
  weights: readonly number[],
  total: number,
  random: () => number
): number => {
  if (!(total > 0)) return Math.floor(random() * weights.length);
  let r = random() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i]!;
    if (r < 0) return i;
  }
  return weights.length - 1;
};
