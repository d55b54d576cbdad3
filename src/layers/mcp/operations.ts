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
import {
  defineOperation,
  TOOL_EVENTS,
  WRITE_EVENTS
} from "../../session/operations/define";
import { tasksOf } from "./call-tasks";

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
  handle: (rt, input) => tasksOf(rt).start(input)
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
  handle: (rt, q) => tasksOf(rt).wait(q.task_id, (q.wait ?? 0) * 1000)
});

export const listTasks = defineOperation({
  input: () => z.object({ cursor: z.string().max(100).optional() }),
  output: TaskListSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, { cursor }) => tasksOf(rt).list(cursor)
});

/** Sent once: a second attempt would find the task ended and be refused. */
export const cancelTask = defineOperation({
  input: () => z.object({ task_id: z.string().min(1).max(64) }),
  output: TaskStatusSchema,
  scope: "act",
  mutates: true,
  events: [],
  handle: (rt, { task_id }) => tasksOf(rt).cancel(task_id)
});

/** MCP's tool-call tasks, added to each session's operation table. */
export const TASK_OPERATIONS = { startTask, readTask, listTasks, cancelTask };

declare module "../../session/operations" {
  interface LayerOperations {
    startTask: typeof startTask;
    readTask: typeof readTask;
    listTasks: typeof listTasks;
    cancelTask: typeof cancelTask;
  }
}
