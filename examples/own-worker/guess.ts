/** @module A user's own environment: guess the secret number, told "higher" or "lower". */

import { defineEnvironment, defineState } from "roost-edge/core";
import * as z from "zod";

export const guess = defineEnvironment({
  name: "guess",
  description: "Guess a secret whole number from 1 to 100.",
  // A seed makes an episode reproducible without putting the secret in the
  // task, which clients can read.
  task: z.object({ seed: z.number().int().min(0).optional() }).default({}),
  state: defineState({
    guesses: { type: z.array(z.number()).default([]) },
    tries: { type: z.number().default(0) }
  }),
  maxSteps: 10,
  tools: (tool) => ({
    guess: tool({
      description: "Guess the number.",
      input: z.object({ n: z.number().int().min(1).max(100) }),
      run: ({ n }, ctx) => {
        // The hidden store: tools read and write it; no route, frame or
        // model view ever shows it.
        const secret = ctx.hidden.get<number>("secret");
        if (secret === undefined) throw new Error("Reset first.");
        ctx.state.set("guesses", n); // a list: each guess is appended
        ctx.state.set("tries", ctx.state.get("tries") + 1); // a number, default 0
        if (n < secret) return "Higher.";
        if (n > secret) return "Lower.";
        ctx.episode.end({ reward: 1 });
        return "Correct!";
      }
    })
  }),
  reset: ({ task, ctx }) => {
    const secret =
      task.seed === undefined
        ? 1 + Math.floor(Math.random() * 100)
        : 1 + ((task.seed * 7919) % 100);
    ctx.hidden.set("secret", secret);
    return "I picked a whole number from 1 to 100. Call guess to find it.";
  }
});
