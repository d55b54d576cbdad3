/** @module Decision-tree runs as operations: start, read (waiting up to a minute), cancel. */

import * as z from "zod";
import {
  RunCreatedSchema,
  RunRequestSchema,
  RunStatusSchema
} from "../../protocol";
import { defineOperation, TOOL_EVENTS, WRITE_EVENTS } from "./define";

/**
 * A run's events, emitted after its start answered, pass by pass: the
 * prompt's message, the tree's choices, the tools it runs and their writes.
 */
export const RUN_EVENTS = [
  "tree.node",
  "tree.decision",
  "tree.completed",
  ...TOOL_EVENTS,
  ...WRITE_EVENTS
] as const;

export const startRun = defineOperation({
  input: RunRequestSchema,
  output: RunCreatedSchema,
  scope: "control",
  mutates: true,
  idempotency: { scope: () => "runs", hashed: (input) => input },
  events: RUN_EVENTS,
  handle: (rt, request, idem) => rt.runs.start(request, idem)
});

export const readRun = defineOperation({
  input: () =>
    z.object({
      run_id: z.string(),
      wait: z.number().nonnegative().optional()
    }),
  output: RunStatusSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, q) => rt.runs.wait(q.run_id, (q.wait ?? 0) * 1000)
});

/** Bypasses the queue: a flag the loop reads between passes, safe to set twice. */
export const cancelRun = defineOperation({
  input: () => z.object({ run_id: z.string() }),
  output: RunStatusSchema,
  scope: "act",
  mutates: false,
  events: [],
  handle: (rt, { run_id }) => rt.runs.cancel(run_id)
});
