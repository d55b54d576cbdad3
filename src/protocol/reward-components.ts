/** @module The wire shape of a step's reward components (a rubric's report). */

import * as z from "zod";
import { lazy } from "../lazy";

/**
 * One component's report. A component that scored is a plain number (most
 * are, so the common case stays small); the object form says why it is
 * not: it threw (`error`, counted as `value` 0), a gate or a sequence
 * skipped it, or it is an episode rubric whose score a discount spreads
 * back over the episode's steps (`per_step`).
 */
export const RewardComponentSchema = lazy(() =>
  z.union([
    z.number(),
    z.strictObject({
      value: z.number().optional(),
      error: z.string().optional(),
      skipped: z.literal(true).optional(),
      /** Step 1 first: γ^(T−t) × the score for step t of T. */
      per_step: z.array(z.number()).optional()
    })
  ])
);
export type RewardComponent = z.infer<ReturnType<typeof RewardComponentSchema>>;

/**
 * Components by flat name (`format`, `answer.exact`): nested rubrics join
 * their path with dots, a parent comes before its children, and siblings
 * keep the order they were declared in.
 */
export const RewardComponentsSchema = lazy(() =>
  z.record(z.string(), RewardComponentSchema()).meta({
    id: "RewardComponents",
    description:
      "What each rubric component scored on this step, by flat name (`answer.exact`). Present only when the environment has a rubric. Weight-0 components (metrics) are reported here and not added to the reward."
  })
);
export type RewardComponents = z.infer<
  ReturnType<typeof RewardComponentsSchema>
>;
