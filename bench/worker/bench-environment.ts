/** @module The environment the benchmarks step: one trivial tool and one that stores an object. */

import * as z from "zod";
import { defineEnvironment, result, scriptedModel } from "../../src/index";
import { benchObject } from "../lib/objects";

export const bench = defineEnvironment({
  name: "bench",
  description:
    "Benchmark fixture: a no-op tool and a tool that stores one object.",
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
  // Scenario 6: three passes that each store an object, then an answer.
  tree: {
    tools: ["put"],
    model: scriptedModel(
      [1, 2, 3].map((n) => ({ tool: "put", inputs: { n } })),
      { final: "stored three" }
    )
  },
  reset: () => "Benchmark session."
});
