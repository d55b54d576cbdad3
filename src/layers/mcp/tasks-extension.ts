/**
 * @module MCP's tasks in the stateless revision (2026-07-28): the
 * `io.modelcontextprotocol/tasks` extension. There the server decides: a
 * client that declares the extension gets a call's result as usual when
 * the call ends within a couple of seconds, and a task to poll when it
 * does not. tasks/get carries the result (or error) once the task ended;
 * tasks/result and tasks/list belong to 2025-11-25 and are not offered.
 * The same durable tasks as 2025-11-25's serve both (tasks.ts).
 */

import { fromErrorBody, RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import { type CallTaskStatus, MCP_META } from "../../protocol";
import { TaskIdParamsSchema } from "../../protocol/mcp-tasks";
import { fromRoost, parseParams, RpcFailure } from "./failure";
import { requestMeta } from "./revision";
import type { McpTarget } from "./target";
import { getTask, mcpTask, onTask } from "./tasks";
import { callToolResult } from "./tool-result";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * How long a call may run before it is answered as a task. Short, since
 * the client then polls at the task's interval; long enough that most
 * calls answer at once, as they would without the extension.
 */
const TASK_AFTER_SECONDS = 2;

/** Whether the request's client capabilities declare the extension. */
export const declaresTasks = (params: unknown): boolean => {
  const meta = requestMeta({ jsonrpc: "2.0", method: "", params });
  const capabilities = meta?.[MCP_META.clientCapabilities] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof declared === "object" && declared !== null;
};

/** The extension's Task: 2025-11-25's, with its durations named in ms. */
const extensionTask = (t: CallTaskStatus) => {
  const { ttl, pollInterval, ...task } = mcpTask(t);
  return { ...task, ttlMs: ttl, pollIntervalMs: pollInterval };
};

/** A refusal recorded in a task, as the JSON-RPC error the call would have had. */
const taskError = (t: CallTaskStatus) =>
  t.error === undefined ? undefined : fromRoost(fromErrorBody(t.error));

/**
 * Runs the call as a task and waits a little: a call that ended answers
 * like any call, one still running answers the task (`resultType: "task"`).
 * A session that keeps as many tasks as it may still serves the call, the
 * plain way.
 */
export const callAsTask = async (
  target: McpTarget,
  name: string,
  args: JsonObject
): Promise<unknown> => {
  let started: CallTaskStatus;
  try {
    started = await target.startTask(name, args);
  } catch (error) {
    const limited =
      error instanceof RoostError &&
      typeof (error.details as { limit?: unknown } | undefined)?.limit ===
        "number";
    if (!limited) throw error;
    return callToolResult(await target.callTool(name, args));
  }
  const now = await target.readTask(started.task_id, TASK_AFTER_SECONDS);
  if (now.status === "completed" && now.result !== undefined) {
    return callToolResult(now.result);
  }
  const error = taskError(now);
  if (now.status === "failed" && error !== undefined) {
    throw new RpcFailure(error);
  }
  return { ...extensionTask(now), resultType: "task" };
};

/** tasks/get: the task, with its result or error once it ended. */
const getExtensionTask = async (target: McpTarget, params: unknown) => {
  const { taskId } = parseParams(TaskIdParamsSchema(), params);
  const t = await onTask(() => target.readTask(taskId));
  const error = taskError(t);
  return {
    ...extensionTask(t),
    ...(t.status === "completed" && t.result !== undefined
      ? { result: { ...callToolResult(t.result), resultType: "complete" } }
      : {}),
    ...(t.status === "failed" && error !== undefined ? { error } : {})
  };
};

export const extensionMethods: Record<
  string,
  (target: McpTarget, params: unknown) => Promise<unknown>
> = {
  "tasks/get": getExtensionTask,
  // An acknowledgement: cancelling is cooperative (a running call ends and
  // takes effect; its task stays cancelled).
  "tasks/cancel": async (target, params) => {
    const { taskId } = parseParams(TaskIdParamsSchema(), params);
    const t = await onTask(() => target.readTask(taskId));
    if (t.status === "working" || t.status === "input_required") {
      await onTask(() => target.cancelTask(taskId));
    }
    return {};
  },
  // Roost's tasks never ask for input, so there is nothing to take; the
  // task must exist all the same.
  "tasks/update": async (target, params) => {
    await getTask(target, params);
    return {};
  }
};
