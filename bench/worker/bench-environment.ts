/** @module The environment the benchmarks step: one trivial tool and one that stores an object. */

import { z } from "zod";
import { defineEnvironment, result } from "../../src/index";
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
  reset: () => "Benchmark session."
});
