/** @module What an MCP message reaches: one session, through the same operations as the HTTP routes. */

import type { Environment } from "../../environment/define-environment";
import type { Registry } from "../../environment/registry";
import { RoostError } from "../../errors";
import type { SessionGateway } from "../../http/gateway";
import type { JsonObject } from "../../json";
import type { Message } from "../../messages/schema";
import {
  type CallTaskStatus,
  type OpenAITool,
  PAGE_LIMIT,
  type StoreEntriesResponse,
  type StoreKeysResponse,
  type ToolInvocationResponse
} from "../../protocol";
import { allows, type Scope } from "../../protocol/scopes";
import type { McpClientRecord } from "../../storage/mcp-client";
import type { LiveView } from "./live-view";
import { type CallChannel, streamedCall } from "./session-stream";
import type { ClientAnswer } from "./streamable-http";

/** What a task's call may ask its client: what the client declared, and answers given before. */
export interface TaskAsking {
  capabilities: JsonObject;
  answers?: Record<string, JsonObject>;
}

/** Messages read for the opening of an episode: a system prompt and the task, with room to spare. */
const OPENING = 20;

export interface McpTarget {
  environment(): Promise<Environment>;
  /** Refuses at once a caller whose credential lacks `scope` (as the session would). */
  requireScope(scope: Scope): void;
  /** The session's live view (live-view.ts), with a token minted for it; absent without a session. */
  liveView?: () => Promise<LiveView>;
  /** The tools the session's episode offers: all, or the subset its reset chose. */
  tools(): Promise<OpenAITool[]>;
  /**
   * Runs a tool as a direct call does; with `channel`, streamed to the
   * client while it runs, and able to ask it (session-stream.ts).
   */
  callTool(
    name: string,
    args: JsonObject,
    channel?: CallChannel
  ): Promise<ToolInvocationResponse>;
  /** Keeps what a client of the handshake era declared and set (initialize, logging/setLevel, subscriptions). */
  recordClient(
    record: Omit<McpClientRecord, "subscriptions"> & {
      subscribe?: string;
      unsubscribe?: string;
    }
  ): Promise<void>;
  /** Hands a client's answer to the call that asked for it. */
  answerClient(id: string, answer: ClientAnswer): Promise<void>;
  /** The running episode's opening messages, up to the model's first turn: the task as the model saw it. */
  openingMessages(): Promise<Message[] | undefined>;
  /** The call as a task, answered at once (tasks.ts); `asking`, when its client may be asked. */
  startTask(
    name: string,
    args: JsonObject,
    ttlMs?: number,
    asking?: TaskAsking
  ): Promise<CallTaskStatus>;
  /** The client's answers to what a task's call asked. */
  updateTask(
    taskId: string,
    responses: Record<string, JsonObject>
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
  session: SessionGateway,
  liveView?: () => Promise<LiveView>
): McpTarget => ({
  environment: async () =>
    registry.get((await session.op("status", {})).environment),
  requireScope: (scope) => {
    if (!allows(session.grant.scope, scope))
      throw new RoostError(
        "forbidden",
        `This credential's scope "${session.grant.scope}" does not allow this; it needs "${scope}".`,
        { scope, granted: session.grant.scope }
      );
  },
  ...(liveView === undefined ? {} : { liveView }),
  tools: async () => (await session.op("tools", {})).tools,
  callTool: (tool, args, channel) =>
    channel === undefined
      ? session.op("call", { tool, arguments: args })
      : streamedCall(session, tool, args, channel),
  recordClient: async (record) => {
    await session.op("mcpClient", record);
  },
  answerClient: async (id, answer) => {
    await session.op("answerClient", { id, answer });
  },
  openingMessages: async () => {
    const { messages } = await session.op("messages", { limit: OPENING });
    const end = messages.findIndex((m) => m.role === "assistant");
    return end < 0 ? messages : messages.slice(0, end);
  },
  startTask: (tool, args, ttlMs, asking) =>
    session.op("startTask", {
      tool,
      arguments: args,
      ...(ttlMs === undefined ? {} : { ttl_ms: ttlMs }),
      ...asking
    }),
  updateTask: (taskId, responses) =>
    session.op("updateTask", {
      task_id: taskId,
      input_responses: responses
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

/**
 * A stateless request to an environment's endpoint that names no session:
 * what the environment offers, before any session exists. Its store is
 * empty, and a tool call never reaches it (the route starts a session).
 */
export const environmentTarget = (environment: Environment): McpTarget => ({
  environment: async () => environment,
  // The route admitted the request; there is no session to guard.
  requireScope: () => {},
  tools: async () => [...environment.toolSchemas],
  // Reached only for a name the environment has no tool by: the route
  // starts a session for any other.
  callTool: async (tool) => {
    throw new RoostError("not_found", `Unknown tool: ${tool}`, { tool });
  },
  startTask: async (tool) => {
    throw new RoostError("not_found", `Unknown tool: ${tool}`, { tool });
  },
  // Nothing to keep without a session: a stateless client sends it all.
  recordClient: async () => {},
  answerClient: async () => {},
  openingMessages: async () => undefined,
  readTask: async (taskId) => noTask(taskId),
  cancelTask: async (taskId) => noTask(taskId),
  updateTask: async (taskId) => noTask(taskId),
  listTasks: async () => ({ tasks: [] }),
  storeKeys: async () => ({ keys: [] }),
  readKey: async (tool) => {
    throw new RoostError("not_found", "No session: the store is empty.", {
      tool
    });
  }
});

const noTask = (taskId: string): never => {
  throw new RoostError(
    "not_found",
    `No task ${taskId.slice(0, 100)}: it names no session of this environment.`,
    { task_id: taskId.slice(0, 100) }
  );
};

/**
 * A session's target whose task ids are carried (task-capability.ts): the
 * ids it answers are made by `carry`, and the only id it takes is `only`
 * (the one a carried id proved), when given; an id it does not know names
 * nothing here.
 */
export const carriedTasks = (
  target: McpTarget,
  carry: (taskId: string) => Promise<string>,
  only?: { carried: string; taskId: string }
): McpTarget => {
  // Ids this target carried itself (a call answered as a task reads it
  // on at once), and the one a carried id proved.
  const known = new Map<string, string>(
    only === undefined ? [] : [[only.carried, only.taskId]]
  );
  const carried = async <T extends { task_id: string }>(t: T): Promise<T> => {
    const id = await carry(t.task_id);
    known.set(id, t.task_id);
    return { ...t, task_id: id };
  };
  const inner = (taskId: string) => known.get(taskId) ?? noTask(taskId);
  return {
    ...target,
    startTask: async (...args) => carried(await target.startTask(...args)),
    readTask: async (taskId, wait) =>
      carried(await target.readTask(inner(taskId), wait)),
    cancelTask: async (taskId) =>
      carried(await target.cancelTask(inner(taskId))),
    updateTask: async (taskId, responses) =>
      carried(await target.updateTask(inner(taskId), responses)),
    listTasks: async () => ({ tasks: [] })
  };
};
