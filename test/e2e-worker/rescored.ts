/** @module A test-only environment: steps of Results by size under a rubric registered for re-scoring, for the heap of a rescore page at its budget. */

import * as z from "zod";
import { defineEnvironment, result } from "../../src/index";

export const rescored = defineEnvironment({
  name: "rescored",
  description: "Yields Results by size; a rubric counts them again on demand.",
  maxSteps: 100,
  tools: (tool) => ({
    fill: tool({
      description: "Yields `results` results of one object padded to `kb` KiB.",
      input: z.object({
        results: z.number().int().min(0).max(64),
        kb: z.number().int().min(0).max(1024)
      }),
      run: async function* ({ results, kb }) {
        for (let i = 0; i < results; i++) {
          yield result({
            name: "fill",
            objects: [
              { i, id: crypto.randomUUID(), pad: "x".repeat(kb * 1024) }
            ]
          });
        }
        return `filled ${results}`;
      }
    })
  }),
  rubrics: ({ rubric }) => ({
    counted: rubric({ steps: ({ observations }) => observations.length })
  }),
  reset: () => "Ready."
});
