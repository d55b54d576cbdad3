/**
 * @module MCP's tasks in the stateless revision (2026-07-28): the
 * `io.modelcontextprotocol/tasks` extension. There the server decides: a
 * client that declares the extension gets a call's result as usual when
 * the call ends within a couple of seconds, and a task to poll when it
 * does not. tasks/get carries the result (or error) once the task ended;
 * tasks/result and tasks/list belong to 2025-11-25 and are not offered.
 * The same durable tasks as 2025-11-25's serve both (tasks.ts).
 */

import * as z from "zod";
import { fromErrorBody, RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import { lazy } from "../../lazy";
import { type CallTaskStatus, JSONRPC_ERRORS, MCP_META } from "../../protocol";
import { JsonObjectSchema } from "../../protocol/json-value";
import { TaskIdParamsSchema } from "../../protocol/mcp-tasks";
import { fromRoost, parseParams, RpcFailure } from "./failure";
import { requestMeta } from "./revision";
import type { McpTarget, TaskAsking } from "./target";
import { mcpTask, onTask } from "./tasks";
import { callToolResult } from "./tool-result";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * How long a call may run before it is answered as a task. Short, since
 * the client then polls at the task's interval; long enough that most
 * calls answer at once, as they would without the extension.
 */
const TASK_AFTER_SECONDS = 2;

const UpdateParamsSchema = lazy(() =>
  TaskIdParamsSchema().extend({
    inputResponses: z.record(z.string(), JsonObjectSchema()).optional()
  })
);

/** Whether the request's client capabilities declare the extension. */
export const declaresTasks = (params: unknown): boolean => {
  const meta = requestMeta({ jsonrpc: "2.0", method: "", params });
  const capabilities = meta?.[MCP_META.clientCapabilities] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof declared === "object" && declared !== null;
};

/** MCP's -32021 for a task method or a task-only tool, without the extension. */
export const tasksRequired = (what: string): RpcFailure =>
  new RpcFailure({
    code: JSONRPC_ERRORS.missingCapability,
    message: `${what} needs the ${TASKS_EXTENSION} extension: declare it in _meta["${MCP_META.clientCapabilities}"].extensions.`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }
  });

/** The extension's methods answer only a client that declared it. */
const requireTasks = (method: string, params: unknown): void => {
  if (!declaresTasks(params)) throw tasksRequired(method);
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
  args: JsonObject,
  at: "once" | "after a while",
  asking: TaskAsking
): Promise<unknown> => {
  if (at === "once") {
    const started = await target.startTask(name, args, undefined, asking);
    return { ...extensionTask(started), resultType: "task" };
  }
  let started: CallTaskStatus;
  try {
    started = await target.startTask(name, args, undefined, asking);
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
  requireTasks("tasks/get", params);
  const { taskId } = parseParams(TaskIdParamsSchema(), params);
  const t = await onTask(() => target.readTask(taskId));
  const error = taskError(t);
  return {
    ...extensionTask(t),
    ...(t.status === "input_required" && t.input_requests !== undefined
      ? { inputRequests: t.input_requests }
      : {}),
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
    requireTasks("tasks/cancel", params);
    const { taskId } = parseParams(TaskIdParamsSchema(), params);
    const t = await onTask(() => target.readTask(taskId));
    if (t.status === "working" || t.status === "input_required") {
      await onTask(() => target.cancelTask(taskId));
    }
    return {};
  },
  // The client's answers to what the task's call asked; answers to what
  // it did not ask are ignored. The task must exist all the same.
  "tasks/update": async (target, params) => {
    requireTasks("tasks/update", params);
    const { taskId, inputResponses = {} } = parseParams(
      UpdateParamsSchema(),
      params
    );
    await onTask(() => target.updateTask(taskId, inputResponses));
    return {};
  }
};
