/** @module The bench environment again, branchable: forks at a past step (scenario 18) and what its history costs a step (scenario 11). */

import * as z from "zod";
import { defineEnvironment, result } from "../../src/index";
import { benchObject } from "../lib/objects";

export const benchBranchable = defineEnvironment({
  name: "bench-branchable",
  description:
    "Benchmark fixture, branchable: a no-op tool and a tool that stores one object.",
  branchable: true,
  maxSteps: 100_000,
  tools: (tool) => ({
    noop: tool({
      description: "Does nothing and answers ok.",
      input: z.object({}),
      run: () => "ok"
    }),
    put: tool({
      description: "Stores object n (about 250 bytes) under put/items.",
      input: z.object({ n: z.number().int().nonnegative() }),
      run: async function* ({ n }) {
        yield result({ name: "items", objects: [benchObject(n)] });
        return "stored";
      }
    })
  }),
  reset: () => "Benchmark session."
});
