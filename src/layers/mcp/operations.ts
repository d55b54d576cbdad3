/**
 * @module Tool calls run as tasks (MCP's tasks) as operations: start,
 * read (waiting up to a minute), list, cancel. Starting and cancelling
 * need `act`, as a direct call does; reading needs `observe`.
 */

import * as z from "zod";
import {
  JsonObjectSchema,
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
import { readMcpClient, writeMcpClient } from "../../storage/mcp-client";
import { LOG_LEVELS } from "../../store/result";
import { tasksOf } from "./call-tasks";
import { answerAsk } from "./client-asks";

/** Resources one client may subscribe to at once; the oldest go first. */
const MAX_SUBSCRIPTIONS = 100;

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

/** A client's answers to what a task's call asked it (MCP's tasks/update). */
export const updateTask = defineOperation({
  input: () =>
    z.object({
      task_id: z.string().min(1).max(64),
      input_responses: z.record(z.string(), JsonObjectSchema())
    }),
  output: TaskStatusSchema,
  scope: "act",
  mutates: true,
  events: [],
  handle: (rt, { task_id, input_responses }) =>
    tasksOf(rt).answer(task_id, input_responses)
});

/**
 * A client's answer to what a tool asked it mid-call (client-asks.ts):
 * handed to the waiting call; `answered` is false when none waits (it
 * ended, or the object restarted since).
 */
export const answerClient = defineOperation({
  input: () =>
    z.object({
      id: z.string().min(1).max(100),
      answer: z.union([
        z.object({ result: JsonObjectSchema() }),
        z.object({
          error: z.object({ code: z.number().int(), message: z.string() })
        })
      ])
    }),
  output: () => z.object({ answered: z.boolean() }),
  scope: "act",
  mutates: false,
  events: [],
  handle: (rt, { id, answer }) => {
    rt.shared.requireRow();
    return { answered: answerAsk(rt, id, answer) };
  }
});

/**
 * What an MCP client of the handshake era declared at initialize (its
 * capabilities: what a tool may ask it) and set with logging/setLevel
 * (the least severe line its calls stream), kept for its calls.
 */
export const mcpClient = defineOperation({
  input: () =>
    z.object({
      capabilities: JsonObjectSchema().optional(),
      log_level: z.enum(LOG_LEVELS).optional(),
      subscribe: z.string().min(1).max(2048).optional(),
      unsubscribe: z.string().min(1).max(2048).optional()
    }),
  output: () => z.object({}),
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, { subscribe, unsubscribe, ...changes }) => {
    rt.shared.requireRow();
    const kept = readMcpClient(rt.shared.sql).subscriptions ?? [];
    const subscriptions =
      subscribe === undefined && unsubscribe === undefined
        ? undefined
        : [
            ...kept.filter((u) => u !== subscribe && u !== unsubscribe),
            ...(subscribe === undefined ? [] : [subscribe])
          ].slice(-MAX_SUBSCRIPTIONS);
    writeMcpClient(rt.shared.sql, {
      ...changes,
      ...(subscriptions === undefined ? {} : { subscriptions })
    });
    return {};
  }
});

/** MCP's tool-call tasks and mid-call asks, added to each session's operation table. */
export const TASK_OPERATIONS = {
  startTask,
  readTask,
  listTasks,
  cancelTask,
  updateTask,
  answerClient,
  mcpClient
};

declare module "../../session/operations" {
  interface LayerOperations {
    startTask: typeof startTask;
    readTask: typeof readTask;
    listTasks: typeof listTasks;
    cancelTask: typeof cancelTask;
    updateTask: typeof updateTask;
    answerClient: typeof answerClient;
    mcpClient: typeof mcpClient;
  }
}
