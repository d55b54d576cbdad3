/** @module A user's own environment: guess the secret number, told "higher" or "lower". */

import { defineEnvironment, defineState, generated } from "roost-edge/core";
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
  // Task i of the dataset is seed i, so an index always picks the same
  // secret (a GRPO group, `roost-edge validate`); `{}` stays a surprise.
  dataset: generated({ get: (seed) => ({ seed }) }),
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
        : secretOf(task.seed);
    ctx.hidden.set("secret", secret);
    return "I picked a whole number from 1 to 100. Call guess to find it.";
  },
  // `roost-edge validate`'s reference policy: with a seed it knows the
  // secret; without one it searches by halves, within 7 guesses.
  validation: {
    oracle: (task) => {
      let [low, high, guessed] = [1, 100, 0];
      return (observations) => {
        const said = observations.map((m) => String(m.content)).join(" ");
        if (/Higher/.test(said)) low = guessed + 1;
        if (/Lower/.test(said)) high = guessed - 1;
        guessed =
          task.seed === undefined
            ? Math.floor((low + high) / 2)
            : secretOf(task.seed);
        return {
          role: "assistant",
          tool_calls: [
            {
              id: `oracle_${guessed}`,
              type: "function",
              function: { name: "guess", arguments: { n: guessed } }
            }
          ]
        };
      };
    }
  }
});

/** The secret of a seeded episode. */
export const secretOf = (seed: number): number => 1 + ((seed * 7919) % 100);
