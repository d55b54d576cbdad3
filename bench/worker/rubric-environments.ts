/**
 * @module Two environments that score the same answer the same way: one
 * with a plain `evaluate`, one with a three-component rubric (a gate-free
 * weighted sum of an exact check, a closeness score and a format metric).
 * The bench steps both to price the rubric against the function it
 * replaces: same tool, same hidden write, same reward.
 */

import * as z from "zod";
import { defineEnvironment } from "../../src/index";

const task = z.object({ answer: z.number() });

const input = z.object({ value: z.number() });
const description = "Submits an answer; the episode goes on.";

const exact = (submitted: number | undefined, answer: number) =>
  submitted === answer;
const close = (submitted: number | undefined, answer: number) =>
  submitted === undefined ? 0 : 1 / (1 + Math.abs(submitted - answer));
const integer = (submitted: number | undefined) =>
  submitted !== undefined && Number.isInteger(submitted);

export const benchEvaluate = defineEnvironment({
  name: "bench-evaluate",
  description: "Benchmark fixture: an answer scored by one evaluate function.",
  task,
  tools: (tool) => ({
    answer: tool({
      description,
      input,
      run: ({ value }, ctx) => {
        ctx.hidden.set("submitted", value);
        return "noted";
      }
    })
  }),
  evaluate: ({ ctx }) => {
    const submitted = ctx.hidden.get<number>("submitted");
    return {
      reward:
        0.7 * Number(exact(submitted, ctx.task.answer)) +
        0.3 * close(submitted, ctx.task.answer)
    };
  },
  reset: () => "Answer."
});

/** The rubric environment, and the same registering it for re-scoring (which records each step beside the log). */
const rubricEnvironment = (rescorable: boolean) =>
  defineEnvironment({
    name: rescorable ? "bench-rescorable" : "bench-rubric",
    description: "Benchmark fixture: the same answer scored by a rubric.",
    task,
    tools: (tool) => ({
      answer: tool({
        description,
        input,
        run: ({ value }, ctx) => {
          ctx.hidden.set("submitted", value);
          return "noted";
        }
      })
    }),
    rubric: (define) =>
      define(
        {
          exact: ({ ctx }) =>
            exact(ctx.hidden.get<number>("submitted"), ctx.task.answer),
          close: ({ ctx }) =>
            close(ctx.hidden.get<number>("submitted"), ctx.task.answer),
          integer: ({ ctx }) => integer(ctx.hidden.get<number>("submitted"))
        },
        { weights: { exact: 0.7, close: 0.3, integer: 0 } }
      ),
    ...(rescorable ? { rubrics: {} } : {}),
    reset: () => "Answer."
  });

export const benchRubric = rubricEnvironment(false);
export const benchRescorable = rubricEnvironment(true);
