/**
 * @module A changed calculator rubric: `format` now counts half, a
 * component reads the hidden store (not in a trajectories file: its
 * error, never a crash), and an episode rubric pays 2 for an episode the
 * environment ended in at most two steps.
 */
import type { ActionInput } from "roost-edge/client";
import {
  defineEpisodeRubric,
  defineRubric,
  type StepRewardArgs
} from "roost-edge/core";
import { submitted } from "./same";

type Args = StepRewardArgs & { action: ActionInput };

export const rubric = defineRubric<Args>(
  {
    exact: ({ observations }) =>
      observations.some(
        (m) => m.name === "submit_answer" && m.content === "Correct."
      ),
    format: ({ action }) => typeof submitted(action) === "number",
    secret: ({ ctx }) => ctx.hidden.has("submitted")
  },
  { weights: { format: 0.5 } }
);

export const episodeRubric = defineEpisodeRubric(
  { quick: ({ steps, done }) => done && steps.length <= 2 },
  { weights: { quick: 2 }, gamma: 0.5 }
);
