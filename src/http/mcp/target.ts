/** @module What an MCP message reaches: one session, through the same operations as the HTTP routes. */

import type { Environment } from "../../environment/define-environment";
import type { Registry } from "../../environment/registry";
import type { JsonObject } from "../../json";
import {
  type CallTaskStatus,
  type OpenAITool,
  PAGE_LIMIT,
  type StoreEntriesResponse,
  type StoreKeysResponse,
  type ToolInvocationResponse
} from "../../protocol";
import type { SessionGateway } from "../gateway";

export interface McpTarget {
  environment(): Promise<Environment>;
  /** The tools the session's episode offers: all, or the subset its reset chose. */
  tools(): Promise<OpenAITool[]>;
  callTool(name: string, args: JsonObject): Promise<ToolInvocationResponse>;
  /** The call as a task, answered at once (tasks.ts). */
  startTask(
    name: string,
    args: JsonObject,
    ttlMs?: number
  ): Promise<CallTaskStatus>;
  /** A task, once it ended or after `waitSeconds`. */
  readTask(taskId: string, waitSeconds?: number): Promise<CallTaskStatus>;
  listTasks(
    cursor?: string
  ): Promise<{ tasks: CallTaskStatus[]; next_cursor?: string | undefined }>;
  cancelTask(taskId: string): Promise<CallTaskStatus>;
  /** A page of the store's keys, from `cursor` (a previous page's `next_cursor`). */
  storeKeys(cursor?: string): Promise<StoreKeysResponse>;
  /** A page of one store key's entries, oldest first, from `cursor`; bounded like GET …/environment. */
  readKey(
    tool: string,
    name: string,
    cursor?: string
  ): Promise<StoreEntriesResponse>;
}

/**
 * Every lookup goes to the object, nothing is kept here: the transport is
 * stateless, so an evicted object serves the next message like the first.
 * A tool call is sent once, like POST …/tools/:tool without an
 * Idempotency-Key: the first attempt may have run the tool.
 */
export const sessionTarget = (
  registry: Registry,
  session: SessionGateway
): McpTarget => ({
  environment: async () =>
    registry.get((await session.op("status", {})).environment),
  tools: async () => (await session.op("tools", {})).tools,
  callTool: (tool, args) => session.op("call", { tool, arguments: args }),
  startTask: (tool, args, ttlMs) =>
    session.op("startTask", {
      tool,
      arguments: args,
      ...(ttlMs === undefined ? {} : { ttl_ms: ttlMs })
    }),
  readTask: (taskId, waitSeconds) =>
    session.op("readTask", {
      task_id: taskId,
      ...(waitSeconds === undefined ? {} : { wait: waitSeconds })
    }),
  listTasks: (cursor) =>
    session.op("listTasks", cursor === undefined ? {} : { cursor }),
  cancelTask: (taskId) => session.op("cancelTask", { task_id: taskId }),
  storeKeys: (cursor) =>
    session.op("storeKeys", cursor === undefined ? {} : { cursor }),
  readKey: (tool, name, cursor) =>
    session.op("readStore", {
      tool,
      name,
      limit: PAGE_LIMIT.max,
      ...(cursor === undefined ? {} : { cursor })
    }) as Promise<StoreEntriesResponse>
});
