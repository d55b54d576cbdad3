/** @module GSM8K-style arithmetic (Aviary's CalculatorEnv): a safe calculator and a graded, terminal submit_answer. */

import {
  dataset,
  defineEnvironment,
  error,
  generated,
  toolCalls
} from "roost-edge/core";
import * as z from "zod";
import { CalculatorError, evaluate, formatNumber } from "./parse";
import {
  makeProblem,
  PROBLEM_COUNT,
  type Problem,
  seededProblem
} from "./problems";

/** Relative tolerance of grading; absolute below 1, so an answer of 0 can be met. */
export const TOLERANCE = 1e-6;

export const isCorrect = (given: number, expected: number): boolean =>
  Math.abs(given - expected) <= TOLERANCE * Math.max(1, Math.abs(expected));

/** Models send numbers as JSON numbers or as text like "1,250" or " 42 ". */
const parseAnswer = (answer: number | string): number => {
  const value =
    typeof answer === "number" ? answer : Number(answer.replace(/,/g, ""));
  if (
    !Number.isFinite(value) ||
    (typeof answer === "string" && answer.trim() === "")
  ) {
    throw new Error(
      `"${answer}" is not a number. Submit the final answer as a plain number.`
    );
  }
  return value;
};

// The answer travels in the task because the session is the grader; only
// `question` ever reaches the model.
const task = z.object({
  question: z.string().min(1),
  answer: z.number().refine(Number.isFinite, "must be finite")
});

/** What submit_answer kept for the rubric: the parsed answer and what the model sent. */
type Submitted = { value: number; raw: number | string };

const asTask = ({ question, answer }: Problem) => ({ question, answer });

const problems = dataset({
  size: PROBLEM_COUNT,
  get: (index) => asTask(makeProblem(index))
});

/** The first 4000 problems train, the last 1000 evaluate; practice draws its own series and never runs out. */
const TRAIN = 4000;
const splits = {
  train: dataset({ size: TRAIN, get: (i) => asTask(makeProblem(i)) }),
  eval: dataset({
    size: PROBLEM_COUNT - TRAIN,
    get: (i) => asTask(makeProblem(TRAIN + i))
  }),
  practice: generated({
    get: (seed) => asTask(seededProblem(seed, 1))
  })
};

export const calculator = defineEnvironment({
  name: "calculator",
  description:
    "Arithmetic word problems (GSM8K-style): work with the calculator, then submit_answer once.",
  task: task.default(problems.get(0)),
  dataset: problems,
  splits,
  maxSteps: 20,
  tools: (tool) => ({
    calculator: tool({
      description: "Calculate an arithmetic expression.",
      input: z
        .object({
          expression: z
            .string()
            .describe(
              "Numbers with + - * / ^ (or ** for powers) and parentheses, e.g. (12 - 4) * 3^2."
            )
        })
        // Checked by `roost-edge validate`: the schema must accept it.
        .meta({ examples: [{ expression: "(12 - 4) * 3^2" }] }),
      // A bad expression is the model's to fix, not a bug of ours: it reads
      // why as the call's error, and the episode goes on. Anything else
      // thrown is an exception, logged with its stack.
      run: async function* ({ expression }) {
        try {
          return formatNumber(evaluate(expression));
        } catch (thrown) {
          if (!(thrown instanceof CalculatorError)) throw thrown;
          yield error({ feedback: thrown.message });
          return;
        }
      }
    }),
    submit_answer: tool({
      description:
        "Submit the final answer. This ends the episode: reward 1 if it is correct, else 0.",
      input: z.object({
        answer: z
          .union([z.number(), z.string()])
          .describe("The final answer, a number.")
      }),
      run: ({ answer }, ctx) => {
        const value = parseAnswer(answer);
        // The rubric grades what was submitted; the hidden store keeps it
        // from the model and goes with the episode.
        ctx.hidden.set("submitted", { value, raw: answer });
        ctx.episode.end();
        return isCorrect(value, ctx.task.answer) ? "Correct." : "Incorrect.";
      }
    })
  }),
  // `exact` is the reward; `format` is a metric (weight 0): reported on
  // every step, never added, so a trainer can watch how often the model
  // answers with a plain number rather than text like "1,250".
  rubric: (define) =>
    define(
      {
        exact: ({ ctx }) => {
          const submitted = ctx.hidden.get<Submitted>("submitted");
          return (
            submitted !== undefined &&
            isCorrect(submitted.value, ctx.task.answer)
          );
        },
        format: ({ ctx }) =>
          typeof ctx.hidden.get<Submitted>("submitted")?.raw === "number"
      },
      { weights: { format: 0 } }
    ),
  // Rubrics a grader may re-apply to finished episodes (POST …/rescore)
  // without running them again: the environment's own, and `partial`,
  // which gives credit for being close — the kind of reward one decides
  // on after a run. Declaring them records what re-scoring reads (one
  // more row written per step).
  rubrics: ({ rubric }) => ({
    partial: rubric({
      close: ({ ctx }) => {
        const submitted = ctx.hidden.get<Submitted>("submitted");
        if (submitted === undefined) return 0;
        const off = Math.abs(submitted.value - ctx.task.answer);
        return 1 / (1 + off / Math.max(1, Math.abs(ctx.task.answer)));
      }
    })
  }),
  reset: ({ task }) =>
    `${task.question}\nUse the calculator for arithmetic, then call submit_answer with the final number.`,
  // `roost-edge validate`'s reference policy: it reads the answer from the
  // task, which the model never sees, and submits it.
  validation: {
    oracle: (task) => () =>
      toolCalls({ name: "submit_answer", arguments: { answer: task.answer } })
  }
});
