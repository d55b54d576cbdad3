/** @module A test-only environment: a tool that writes, streams a result, then sleeps, so a test can abort a step in flight. */

import * as z from "zod";
import { defineEnvironment, defineState, result } from "../../src/index";

export const nap = defineEnvironment({
  name: "nap",
  description: "Counts naps; each nap streams a result, then sleeps.",
  state: defineState({ naps: { type: z.number().int().default(0) } }),
  tools: (tool) => ({
    nap: tool({
      description: "Counts a nap, streams it, then sleeps ms.",
      input: z.object({ ms: z.number().int().min(0).max(10_000) }),
      timeoutMs: 20_000,
      run: async function* ({ ms }, ctx) {
        const naps = ctx.state.set("naps", ctx.state.get("naps") + 1);
        yield result({ name: "naps", objects: [{ naps }] });
        await new Promise((r) => setTimeout(r, ms));
        return `naps=${naps}`;
      }
    })
  }),
  reset: () => "Nap."
});
