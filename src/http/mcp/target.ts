/** @module What an MCP message reaches: one session, through the same RPCs as the HTTP routes. */

import type { Environment } from "../../environment/define-environment";
import type { Registry } from "../../environment/registry";
import type { JsonObject } from "../../json";
import type {
  KeyInfo,
  OpenAITool,
  StoreEntriesResponse,
  ToolInvocationResponse
} from "../../protocol";
import type { RpcResult } from "../../session/rpc";
import type { SessionStub } from "../stub";

export interface McpTarget {
  environment(): Promise<Environment>;
  /** The tools the session's episode offers: all, or the subset its reset chose. */
  tools(): Promise<OpenAITool[]>;
  callTool(name: string, args: JsonObject): Promise<ToolInvocationResponse>;
  storeKeys(): Promise<KeyInfo[]>;
  /** The first `limit` entries of one store key, oldest first. */
  readKey(
    tool: string,
    name: string,
    limit: number
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
  storeKeys: async () =>
    (await call((s) => s.op("storeKeys", {}), { retry: true })).keys,
  readKey: (tool, name, limit) =>
    call(
      (s) =>
        s.op("readStore", { tool, name, limit }) as Promise<
          RpcResult<StoreEntriesResponse>
        >,
      { retry: true }
    )
});
