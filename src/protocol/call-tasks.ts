/** @module A tool call run as a task (MCP's tasks): its status as the session's task operations answer it. */

import * as z from "zod";
import { lazy } from "../lazy";
import { ErrorBodySchema } from "./error-body";
import { ToolInvocationResponseSchema } from "./http-tools";
import { JsonObjectSchema } from "./json-value";

export const TASK_STATUSES = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled"
] as const;
export type TaskState = (typeof TASK_STATUSES)[number];

/**
 * How long a task is kept from its creation: a client may ask for less or
 * more, within these bounds (MCP lets the server choose, and the task says
 * what it chose). A day matches how long an Idempotency-Key is kept.
 */
export const TASK_TTL_MS = { default: 3_600_000, min: 1_000, max: 86_400_000 };

export const TaskStartSchema = lazy(() =>
  z.object({
    tool: z.string().min(1),
    arguments: JsonObjectSchema(),
    ttl_ms: z.number().nonnegative().optional(),
    /** The MCP client's declared capabilities: what the call may ask it (tools/ask.ts). */
    capabilities: JsonObjectSchema().optional(),
    /** Answers the client gave before the task began, by the names they were asked with. */
    answers: z.record(z.string(), JsonObjectSchema()).optional()
  })
);

export const TaskStatusSchema = lazy(() =>
  z
    .object({
      task_id: z.string(),
      status: z.enum(TASK_STATUSES),
      status_message: z.string().optional(),
      created_at: z.iso.datetime(),
      updated_at: z.iso.datetime(),
      ttl_ms: z.number().int(),
      poll_interval_ms: z.number().int(),
      /** The call's answer, once it committed (completed, or failed with `is_error`). */
      result: ToolInvocationResponseSchema().optional(),
      /** Why the call was refused (failed without a result). */
      error: ErrorBodySchema().optional(),
      /** What the call asks its client, while `input_required`, by name. */
      input_requests: z.record(z.string(), JsonObjectSchema()).optional()
    })
    .meta({
      id: "CallTaskStatus",
      description:
        "A tool call run as a task: where it stands, and its answer once it ended."
    })
);
export type CallTaskStatus = z.infer<ReturnType<typeof TaskStatusSchema>>;

export const TaskListSchema = lazy(() =>
  z.object({
    tasks: z.array(TaskStatusSchema()),
    next_cursor: z.string().optional()
  })
);
