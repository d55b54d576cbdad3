/** @module Decision-tree runs as operations: start, read (waiting up to a minute), cancel. */

import * as z from "zod";
import {
  ChatIdSchema,
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

/** A run started by the chat endpoint: a run like any, that remembers its chat. */
export const startChat = defineOperation({
  input: () => RunRequestSchema().extend({ chat_id: ChatIdSchema() }),
  output: RunCreatedSchema,
  mutates: true,
  idempotency: { scope: () => "runs", hashed: (input) => input },
  events: ["message"],
  run: (rt, { chat_id, ...request }, idem) =>
    rt.runs.start({ ...request, chatId: chat_id }, idem)
});

export const readRun = defineOperation({
  input: () =>
    z.object({
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
  input: () => z.object({ run_id: z.string() }),
  output: RunStatusSchema,
  mutates: false,
  events: [],
  run: (rt, { run_id }) => rt.runs.cancel(run_id)
});
