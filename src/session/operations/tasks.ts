/**
 * @module Tool calls run as tasks (MCP's tasks) as operations: start,
 * read (waiting up to a minute), list, cancel. Starting and cancelling
 * need `act`, as a direct call does; reading needs `observe`.
 */

import * as z from "zod";
import {
  NameSchema,
  TaskListSchema,
  TaskStartSchema,
  TaskStatusSchema
} from "../../protocol";
import { defineOperation, TOOL_EVENTS, WRITE_EVENTS } from "./define";

/**
 * Sent once, like a direct call without an Idempotency-Key: a second
 * attempt after the platform broke the first could start a second task.
 */
export const startTask = defineOperation({
  input: () => TaskStartSchema().extend({ tool: NameSchema() }),
  output: TaskStatusSchema,
  scope: "act",
  mutates: true,
  // The call's events come after the start answered, as a run's do.
  events: [...TOOL_EVENTS, ...WRITE_EVENTS],
  handle: (rt, input) => rt.tasks.start(input)
});

export const readTask = defineOperation({
  input: () =>
    z.object({
      task_id: z.string().min(1).max(64),
      wait: z.number().nonnegative().max(60).optional()
    }),
  output: TaskStatusSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, q) => rt.tasks.wait(q.task_id, (q.wait ?? 0) * 1000)
});

export const listTasks = defineOperation({
  input: () => z.object({ cursor: z.string().max(100).optional() }),
  output: TaskListSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, { cursor }) => rt.tasks.list(cursor)
});

/** Sent once: a second attempt would find the task ended and be refused. */
export const cancelTask = defineOperation({
  input: () => z.object({ task_id: z.string().min(1).max(64) }),
  output: TaskStatusSchema,
  scope: "act",
  mutates: true,
  events: [],
  handle: (rt, { task_id }) => rt.tasks.cancel(task_id)
});
