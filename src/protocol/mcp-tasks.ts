/** @module MCP's tasks (protocol 2025-11-25): the params Roost reads and the Task it answers. */

import * as z from "zod";
import { lazy } from "../lazy";
import type { TaskState } from "./call-tasks";

/** Where a result names the task it came from (`_meta`). */
export const RELATED_TASK_META = "io.modelcontextprotocol/related-task";

/** What initialize declares: tasks of tools/call, listed and cancelled. */
export const TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } }
} as const;

/** A tools/call's `task` (its other params are ToolsCallParamsSchema's). */
export const TaskAugmentationSchema = lazy(() =>
  z.looseObject({
    task: z.looseObject({ ttl: z.number().nonnegative().optional() }).optional()
  })
);

/** Long enough for an id that carries its session's credential (an environment's endpoint). */
export const TaskIdParamsSchema = lazy(() =>
  z.object({ taskId: z.string().min(1).max(1024) })
);

export const TaskListParamsSchema = lazy(() =>
  z.object({ cursor: z.string().max(100).optional() })
);

/** A Task as MCP's clients parse it. */
export interface McpTask {
  taskId: string;
  status: TaskState;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}
