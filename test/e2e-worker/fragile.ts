/** @module A test-only environment whose tool throws from a helper, so a test can find the stack in wrangler dev's log. */

import * as z from "zod";
import { defineEnvironment } from "../../src/index";

/** A named frame the stack must show, away from the tool's own. */
function checkSpring(tension: number): number {
  if (tension > 3) throw new Error(`spring snapped at tension ${tension}`);
  return tension;
}

export const fragile = defineEnvironment({
  name: "fragile",
  description: "A spring that snaps when wound past 3.",
  tools: (tool) => ({
    wind: tool({
      description: "Winds the spring to a tension; past 3 it snaps.",
      input: z.object({ tension: z.number().int().min(0) }),
      run: ({ tension }) => `tension=${checkSpring(tension)}`
    })
  }),
  reset: () => "Wind the spring."
});
