/** @module A test-only environment whose state values and store keys grow as large as a test asks, so reads of it take many pages. */

import * as z from "zod";
import { defineEnvironment, defineState, result } from "../../src/index";

/** Under the 256 KiB a string may hold. */
const PIECE_KIB = 200;

export const ledger = defineEnvironment({
  name: "ledger",
  description: "Pads state values and spreads results over many keys.",
  state: defineState({
    a: { type: z.array(z.string()).default([]) },
    b: { type: z.array(z.string()).default([]) }
  }),
  tools: (tool) => ({
    pad: tool({
      description:
        "Appends kb KiB of `x` to a state list, in strings of at most 200 KiB.",
      input: z.object({
        key: z.enum(["a", "b"]),
        kb: z.number().int().min(1).max(1020)
      }),
      run: ({ key, kb }, ctx) => {
        const pieces: string[] = [];
        for (let left = kb; left > 0; left -= PIECE_KIB)
          pieces.push("x".repeat(Math.min(left, PIECE_KIB) * 1024));
        ctx.state.set(key, pieces);
        return `padded ${key} by ${kb} KiB`;
      }
    }),
    spread: tool({
      description:
        "Yields one small result under each of `keys` names of 60 characters.",
      input: z.object({ keys: z.number().int().min(1).max(200) }),
      run: async function* ({ keys }) {
        for (let i = 0; i < keys; i++)
          yield result({
            name: `k${String(i).padStart(3, "0")}_${"n".repeat(56)}`,
            objects: [{ i }]
          });
        return `spread over ${keys} keys`;
      }
    })
  }),
  reset: () => "Ledger open."
});
