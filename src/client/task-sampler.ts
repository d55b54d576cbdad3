/**
 * @module Which dataset index a rollout's next episode (or group) plays:
 * in order, uniformly at random, or by a curriculum that favours the tasks
 * whose groups are likely to disagree, the only ones a group-relative
 * update (GRPO) learns from.
 */

import {
  seededRandom,
  taskWeight,
  weightedDraw
} from "../protocol/task-signal";
import type { TaskStats } from "./task-stats";

export type SamplerKind = "sequential" | "uniform" | "curriculum";
export const SAMPLERS: readonly SamplerKind[] = [
  "sequential",
  "uniform",
  "curriculum"
];

// The weighting is shared with the server's sample route.
export {
  passRate,
  pickWeighted,
  signalWeight,
  weightGroupSize
} from "../protocol/task-signal";

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
  return () => {
    // Read at every draw: the run's own outcomes change the weights.
    const known = options.stats
      .records(options.split)
      .filter((r) => r.index < count)
      .map((r) => ({
        index: r.index,
        weight: taskWeight(r, options.groupSize)
      }));
    const draw = weightedDraw(
      count,
      known,
      taskWeight(undefined, options.groupSize)
    );
    return draw(random);
  };
};
