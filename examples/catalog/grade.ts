/** @module The catalog's rubric: a model judge grades an answer in words against the task's reference answer. */

import {
  type AssistantMessage,
  contentText,
  defineRubric,
  gate,
  judge,
  type StepRewardArgs
} from "roost-edge/core";

/** Hidden-store key of the task's reference answer: the judge reads it, the model never does. */
export const REFERENCE_KEY = "reference";

/** An answer is an action in words: text, and no tool call. */
export const answerText = (action: AssistantMessage): string | undefined => {
  if ((action.tool_calls ?? []).length > 0) return undefined;
  const text = contentText(action.content).trim();
  return text === "" ? undefined : text;
};

type Args = StepRewardArgs<never, { question: string }>;

/**
 * `answer` is 0 until the model answers in words and the task carried a
 * reference: searching costs no model call. Then a judge (the
 * deployment's default model) scores the answer against the reference,
 * from 0 to 1, as the default judge schema asks.
 */
export const catalogRubric = defineRubric<Args>({
  answer: gate(
    ({ action, ctx }) =>
      ctx.hidden.has(REFERENCE_KEY) && answerText(action) !== undefined,
    defineRubric<Args>({
      judge: judge<Args>({
        prompt: ({ action, ctx }) => ({
          system:
            "You grade a pet shop assistant's answer against a reference answer. Score 1 when the answer gives the reference's facts, 0 when it misses or contradicts them, and in between for a partial answer. Say briefly why in `reason`.",
          user: [
            `Question: ${ctx.task.question}`,
            `Reference answer: ${ctx.hidden.get<string>(REFERENCE_KEY)}`,
            `Answer to grade: ${answerText(action)}`
          ].join("\n")
        })
      })
    })
  )
});
