/**
 * @module MCP's tasks over a session's task operations: a tools/call with
 * `task` answers a CreateTaskResult at once, and tasks/get, tasks/result,
 * tasks/list and tasks/cancel follow it. The task lives in the session
 * (its Durable Object), so it outlives this request, the transport and
 * the object itself.
 */

import { fromErrorBody, RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import { type CallTaskStatus, JSONRPC_ERRORS } from "../../protocol";
import {
  type McpTask,
  RELATED_TASK_META,
  TaskAugmentationSchema,
  TaskIdParamsSchema,
  TaskListParamsSchema
} from "../../protocol/mcp-tasks";
import { fromRoost, invalidParams, parseParams, RpcFailure } from "./failure";
import type { McpTarget } from "./target";
import { callToolResult } from "./tool-result";

/**
 * tasks/result waits in slices (each one call to the object, which waits
 * at most a minute), up to this in all: a Worker request may wait that
 * long while its client stays, and the official client asks only once
 * tasks/get says the task ended.
 */
const RESULT_SLICE_SECONDS = 30;
const RESULT_MAX_MS = 10 * 60_000;

export const mcpTask = (t: CallTaskStatus): McpTask => ({
  taskId: t.task_id,
  status: t.status,
  ...(t.status_message === undefined
    ? {}
    : { statusMessage: t.status_message }),
  createdAt: t.created_at,
  lastUpdatedAt: t.updated_at,
  ttl: t.ttl_ms,
  pollInterval: t.poll_interval_ms
});

/** The `task` a tools/call asks for, if it asks for one. */
export const taskRequested = (
  params: unknown
): { ttl?: number | undefined } | undefined =>
  parseParams(TaskAugmentationSchema(), params).task;

/** A task id that names nothing, or a task that already ended, is the request's fault: -32602. */
export const onTask = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (error) {
    if (
      error instanceof RoostError &&
      (error.code === "not_found" || error.code === "conflict") &&
      typeof (error.details as { task_id?: unknown } | undefined)?.task_id ===
        "string"
    ) {
      throw invalidParams(error.message);
    }
    throw error;
  }
};

export const getTask = async (target: McpTarget, params: unknown) => {
  const { taskId } = parseParams(TaskIdParamsSchema(), params);
  return mcpTask(await onTask(() => target.readTask(taskId)));
};

/**
 * The call's CallToolResult once the task ended, tagged with its task; a
 * task that failed answers the refusal that failed it, and a cancelled one
 * says so, both as JSON-RPC errors.
 */
export const taskResult = async (target: McpTarget, params: unknown) => {
  const { taskId } = parseParams(TaskIdParamsSchema(), params);
  const began = Date.now();
  let task = await onTask(() => target.readTask(taskId));
  while (task.status === "working" || task.status === "input_required") {
    if (Date.now() - began >= RESULT_MAX_MS) {
      throw new RpcFailure({
        code: JSONRPC_ERRORS.server,
        message: `Task ${taskId} is still working; poll tasks/get and ask for its result again.`,
        data: { code: "unavailable", details: { task_id: taskId } }
      });
    }
    task = await onTask(() => target.readTask(taskId, RESULT_SLICE_SECONDS));
  }
  const meta = { [RELATED_TASK_META]: { taskId } };
  if (task.result !== undefined)
    return { ...callToolResult(task.result), _meta: meta };
  if (task.error !== undefined) {
    const rpc = fromRoost(fromErrorBody(task.error));
    throw new RpcFailure({
      ...rpc,
      data: { ...(rpc.data as object), _meta: meta }
    });
  }
  throw new RpcFailure({
    code: JSONRPC_ERRORS.server,
    message: `Task ${taskId} was cancelled; it has no result.`,
    data: {
      code: "conflict",
      details: { task_id: taskId, status: task.status },
      _meta: meta
    }
  });
};

export const listTasks = async (target: McpTarget, params: unknown) => {
  const { cursor } = parseParams(TaskListParamsSchema(), params);
  const page = await target.listTasks(cursor);
  return {
    tasks: page.tasks.map(mcpTask),
    ...(page.next_cursor === undefined ? {} : { nextCursor: page.next_cursor })
  };
};

export const cancelTask = async (target: McpTarget, params: unknown) => {
  const { taskId } = parseParams(TaskIdParamsSchema(), params);
  return mcpTask(await onTask(() => target.cancelTask(taskId)));
};

/** Starts the call as a task: MCP's CreateTaskResult. */
export const startToolTask = async (
  target: McpTarget,
  name: string,
  args: JsonObject,
  task: { ttl?: number | undefined }
) => ({ task: mcpTask(await target.startTask(name, args, task.ttl)) });

/** The methods dispatch.ts registers. */
export const taskMethods: Record<
  string,
  (target: McpTarget, params: unknown) => Promise<unknown>
> = {
  "tasks/get": getTask,
  "tasks/result": taskResult,
  "tasks/list": listTasks,
  "tasks/cancel": cancelTask
};
