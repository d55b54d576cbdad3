/** @module The Aviary counter: increment to the target for a reward of 1. */

import { defineEnvironment, defineState, toolCalls } from "roost-edge/core";
import * as z from "zod";

const state = defineState({
  count: { type: z.number().int().default(0) }
});

const task = z
  .object({ target: z.number().int().min(1).max(1_000_000).default(10) })
  .default({ target: 10 });

export const counter = defineEnvironment({
  name: "counter",
  description:
    "A counter to bring to the target with incr and decr (Aviary's first example).",
  task,
  state,
  tools: (tool) => ({
    incr: tool({
      description: "Increment the counter.",
      input: z.object({}),
      run: (_args, ctx) =>
        `counter=${ctx.state.set("count", ctx.state.get("count", 0) + 1)}`
    }),
    decr: tool({
      description: "Decrement the counter.",
      input: z.object({}),
      run: (_args, ctx) =>
        `counter=${ctx.state.set("count", ctx.state.get("count", 0) - 1)}`
    })
  }),
  reset: ({ task, ctx }) =>
    `Count to ${task.target}. counter=${ctx.state.get("count", 0)}`,
  evaluate: ({ ctx }) => {
    const reward = ctx.state.get("count", 0) === ctx.task.target ? 1 : 0;
    return { reward, done: reward === 1 };
  },
  // `roost-edge validate`'s reference policy: every target is above the
  // count's start, 0, so incr until the episode ends. Targets far above
  // 50 need validation.maxSteps raised; the default task's is 10.
  validation: {
    oracle: () => () => toolCalls({ name: "incr" })
  }
});
