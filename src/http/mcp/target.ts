/** @module What an MCP message reaches: one session, through the same RPCs as the HTTP routes. */

import type { Environment } from "../../environment/define-environment";
import type { Registry } from "../../environment/registry";
import type { JsonObject } from "../../json";
import {
  type OpenAITool,
  PAGE_LIMIT,
  type StoreEntriesResponse,
  type StoreKeysResponse,
  type ToolInvocationResponse
} from "../../protocol";
import type { RpcResult } from "../../session/rpc";
import type { SessionStub } from "../stub";

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

/** Calls the session's object: `withSession` or `callSession` bound to one id. */
export type SessionCaller = <T>(
  call: (stub: SessionStub) => Promise<RpcResult<T>>,
  options: { retry: boolean }
) => Promise<T>;

/**
 * Every lookup goes to the object, nothing is kept here: the transport is
 * stateless, so an evicted object serves the next message like the first.
 */
export const sessionTarget = (
  registry: Registry,
  call: SessionCaller
): McpTarget => ({
  environment: async () =>
    registry.get(
      (await call((s) => s.op("status", {}), { retry: true })).environment
    ),
  tools: async () =>
    (await call((s) => s.op("tools", {}), { retry: true })).tools,
  // Not retried, like POST …/tools/:tool without an Idempotency-Key: the
  // first attempt may have run the tool.
  callTool: (tool, args) =>
    call((s) => s.op("call", { tool, arguments: args }), { retry: false }),
  storeKeys: (cursor) =>
    call((s) => s.op("storeKeys", cursor === undefined ? {} : { cursor }), {
      retry: true
    }),
  readKey: (tool, name, cursor) =>
    call(
      (s) =>
        s.op("readStore", {
          tool,
          name,
          limit: PAGE_LIMIT.max,
          ...(cursor === undefined ? {} : { cursor })
        }) as Promise<RpcResult<StoreEntriesResponse>>,
      { retry: true }
    )
});
