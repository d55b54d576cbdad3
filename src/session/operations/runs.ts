/** @module Decision-tree runs as operations: start, read (waiting up to a minute), cancel. */

import * as z from "zod";
import {
  RunCreatedSchema,
  RunRequestSchema,
  RunStatusSchema
} from "../../protocol";
import { defineOperation } from "./define";

export const startRun = defineOperation({
  input: RunRequestSchema,
  output: RunCreatedSchema,
  mutates: true,
  idempotency: { scope: () => "runs", hashed: (input) => input },
  events: ["message"],
  run: (rt, request, idem) => rt.runs.start(request, idem)
});

export const readRun = defineOperation({
  input: z.object({
    run_id: z.string(),
    wait: z.number().nonnegative().optional()
  }),
  output: RunStatusSchema,
  mutates: false,
  events: [],
  run: (rt, q) => rt.runs.wait(q.run_id, (q.wait ?? 0) * 1000)
});

/** Bypasses the queue: a flag the loop reads between passes, safe to set twice. */
export const cancelRun = defineOperation({
  input: z.object({ run_id: z.string() }),
  output: RunStatusSchema,
  mutates: false,
  events: [],
  run: (rt, { run_id }) => rt.runs.cancel(run_id)
});
