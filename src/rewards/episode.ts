/** @module Episode (trajectory) rubrics: scored once, when the episode ends, over its steps. */

import { RoostError } from "../errors";
import type { Component, EpisodeRewardArgs, Rubric } from "./types";
import { type WeightedSumOptions, weightedSum } from "./weighted-sum";

export interface EpisodeRubric<Args> {
  readonly kind: "episode-rubric";
  readonly rubric: Rubric<Args>;
  /** The discount, in (0, 1]; absent, nothing is spread back. */
  readonly gamma?: number;
}

export interface EpisodeRubricOptions extends WeightedSumOptions {
  /**
   * Spreads the episode's score back over its steps, as OpenEnv's
   * exponentially discounting trajectory rubric: step t of T is credited
   * γ^(T−t) × score (the last step the whole score), reported as the
   * `episode` component's `per_step`.
   */
  gamma?: number;
}

/**
 * A rubric scored once per episode, on the step that ends it (done or
 * truncated), over every step: actions, observations, rewards and
 * components. Its score is added to that last step's reward, and its
 * components are reported there as `episode` and `episode.<name>`.
 *
 * @example
 * episodeRubric: defineEpisodeRubric(
 *   { solved: ({ done }) => done, short: ({ steps }) => 1 / steps.length },
 *   { weights: { short: 0 }, gamma: 0.9 }
 * )
 */
export const defineEpisodeRubric = <Args = EpisodeRewardArgs>(
  components: Record<string, Component<NoInfer<Args>>>,
  options: EpisodeRubricOptions = {}
): EpisodeRubric<Args> => {
  const { gamma, ...sum } = options;
  if (gamma !== undefined && !(gamma > 0 && gamma <= 1)) {
    throw new RoostError(
      "invalid_request",
      "An episode rubric's gamma must be in (0, 1]."
    );
  }
  return {
    kind: "episode-rubric",
    rubric: weightedSum<Args>(components, sum),
    ...(gamma === undefined ? {} : { gamma })
  };
};

/** γ^(T−t) × score for t = 1…T: a delayed score spread back over T steps. */
export const discount = (
  score: number,
  steps: number,
  gamma: number
): number[] =>
  Array.from({ length: steps }, (_, i) => gamma ** (steps - 1 - i) * score);
