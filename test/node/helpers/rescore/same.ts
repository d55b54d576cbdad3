/**
 * @module The calculator's rubric as a trajectories file can score it:
 * `exact` from what submit_answer answered, `format` (a metric) from the
 * action's answer being a number, instead of the hidden store, which the
 * file does not hold.
 */
import type { ActionInput } from "roost-edge/client";
import { defineRubric, type StepRewardArgs } from "roost-edge/core";

type Args = StepRewardArgs & { action: ActionInput };

/** The submitted answer as the model sent it, or undefined on a step that did not submit. */
export const submitted = (action: ActionInput): unknown => {
  const call = action.tool_calls?.find(
    (c) => c.function.name === "submit_answer"
  );
  if (call === undefined) return undefined;
  const args = call.function.arguments;
  return (typeof args === "string" ? JSON.parse(args) : args)?.answer;
};

export const rubric = defineRubric<Args>(
  {
    exact: ({ observations }) =>
      observations.some(
        (m) => m.name === "submit_answer" && m.content === "Correct."
      ),
    format: ({ action }) => typeof submitted(action) === "number"
  },
  { weights: { format: 0 } }
);
