/** @module Scenario 15's environment: a code tool and a plain synchronous tool in one session type, so a call of each is compared on equal terms. */

import * as z from "zod";
import { codeTool } from "../../src/code/index";
import { defineEnvironment } from "../../src/index";

export const benchCode = defineEnvironment({
  name: "bench-code",
  description:
    "Benchmark fixture: run_js (a code tool granted the store) and noop, a synchronous tool.",
  tools: (tool) => ({
    run_js: codeTool({ capabilities: { store: true } }),
    noop: tool({
      description: "Does nothing and answers ok.",
      input: z.object({}),
      run: () => "ok"
    })
  }),
  reset: () => "Benchmark session."
});
