/** @module A user's own environment: guess the secret number, told "higher" or "lower". */

import { defineEnvironment, defineState } from "roost-edge/core";
import { z } from "zod";

export const guess = defineEnvironment({
  name: "guess",
  description: "Guess a secret whole number from 1 to 100.",
  task: z
    .object({ secret: z.number().int().min(1).max(100).default(42) })
    .default({ secret: 42 }),
  state: defineState({ guesses: { type: z.array(z.number()).default([]) } }),
  maxSteps: 10,
  tools: (tool) => ({
    guess: tool({
      description: "Guess the number.",
      input: z.object({ n: z.number().int().min(1).max(100) }),
      run: ({ n }, ctx) => {
        ctx.state.set("guesses", n); // a list: each guess is appended
        if (n < ctx.task.secret) return "Higher.";
        if (n > ctx.task.secret) return "Lower.";
        ctx.episode.end({ reward: 1 });
        return "Correct!";
      }
    })
  }),
  reset: () => "I picked a whole number from 1 to 100. Call guess to find it."
});
