/** @module What an MCP message reaches: one session, through the same operations as the HTTP routes. */

import type { Environment } from "../../environment/define-environment";
import type { Registry } from "../../environment/registry";
import { RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import {
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
  tools: async () => [...environment.toolSchemas],
  // Reached only for a name the environment has no tool by: the route
  // starts a session for any other.
  callTool: async (tool) => {
    throw new RoostError("not_found", `Unknown tool: ${tool}`, { tool });
  },
  storeKeys: async () => ({ keys: [] }),
  readKey: async (tool) => {
    throw new RoostError("not_found", "No session: the store is empty.", {
      tool
    });
  }
});
