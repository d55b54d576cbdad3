/** @module `defineRubric` / `weightedSum`: named components, each with a weight; weight 0 is a metric. */

import { RoostError } from "../errors";
import {
  checkComponents,
  metricsOf,
  pathsOf,
  scoreComponent
} from "./component";
import type { Component, Entries, Rubric, StepRewardArgs } from "./types";

export interface WeightedSumOptions {
  /**
   * Each component's weight, 1 when left out. Weight 0 makes a metric:
   * computed and reported every step, never added to the reward.
   */
  // Keys are checked against the components when the rubric is defined;
  // typing them from the components would cost the reward functions the
  // types of their arguments, which TypeScript then infers from them.
  weights?: Record<string, number>;
}

/**
 * A rubric whose value is Σ weight × value over its components, in the
 * order they are declared (OpenEnv's WeightedSum and RubricDict in one,
 * verifiers' reward functions with weights). A component that throws is
 * reported with its error and counts 0; the others still score.
 *
 * @example
 * const rubric = weightedSum(
 *   { exact: ({ ctx }) => ctx.hidden.get("answer") === ctx.task.answer,
 *     format: ({ observations }) => observations.length === 1 },
 *   { weights: { format: 0 } }
 * );
 */
export const weightedSum = <Args>(
  components: Record<string, Component<Args>>,
  options: WeightedSumOptions = {}
): Rubric<Args> => {
  checkComponents("a rubric", components);
  const weights = resolveWeights(components, options.weights ?? {});
  const named = Object.entries(components) as [string, Component<Args>][];
  return {
    kind: "rubric",
    paths: named.flatMap(([name, c]) => pathsOf(name, c)),
    // A weight-0 component is a metric with all below it; any other keeps
    // the metrics of its own.
    metrics: named.flatMap(([name, c]) =>
      weights.get(name) === 0 ? pathsOf(name, c) : metricsOf(name, c)
    ),
    async score(args) {
      // One after another, as declared: a component may read what an
      // earlier one left in the hidden store, and the report keeps order.
      let value = 0;
      const entries: Entries = [];
      for (const [name, c] of named) {
        const scored = await scoreComponent(name, c, args);
        value += weights.get(name)! * scored.value;
        entries.push(...scored.entries);
      }
      return { value, entries };
    }
  };
};

/**
 * The rubric an environment's steps are scored with: `weightedSum` over
 * step reward functions, so `ctx` is typed with the environment's state
 * and task when it is written inside `defineEnvironment({ rubric })`.
 */
export const defineRubric: <Args = StepRewardArgs>(
  components: Record<string, Component<NoInfer<Args>>>,
  options?: WeightedSumOptions
) => Rubric<Args> = weightedSum;

const resolveWeights = <Args>(
  components: Record<string, Component<Args>>,
  given: Partial<Record<string, number>>
): Map<string, number> => {
  for (const [name, w] of Object.entries(given)) {
    if (!Object.hasOwn(components, name)) {
      throw new RoostError(
        "invalid_request",
        `The weight of "${name}" names no component; the components are ${Object.keys(components).join(", ")}.`
      );
    }
    if (typeof w !== "number" || !Number.isFinite(w)) {
      throw new RoostError(
        "invalid_request",
        `The weight of "${name}" must be a finite number.`
      );
    }
  }
  return new Map(Object.keys(components).map((n) => [n, given[n] ?? 1]));
};
