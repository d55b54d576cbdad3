/** @module Answers one MCP JSON-RPC request for one session: the method table and the error mapping. */

import { RoostError } from "../../errors";
import {
  InitializeParamsSchema,
  JSONRPC_ERRORS,
  type JsonRpcMessage,
  type JsonRpcResponse,
  MCP_PROTOCOL_VERSIONS
} from "../../protocol";
import { fromRoost, isSessionGone, parseParams, RpcFailure } from "./failure";
import {
  listResources,
  listResourceTemplates,
  readResource
} from "./resources";
import type { McpTarget } from "./target";
import { callTool, listTools } from "./tools";

/** Newest supported unless the client asked for one Roost speaks. */
const negotiate = (asked: string | undefined): string =>
  (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked ?? "")
    ? (asked as string)
    : MCP_PROTOCOL_VERSIONS[0];

const methods: Record<
  string,
  (target: McpTarget, params: unknown) => Promise<unknown>
> = {
  initialize: async (target, params) => ({
    protocolVersion: negotiate(
      parseParams(InitializeParamsSchema, params).protocolVersion
    ),
    // Nothing changes under a client (tools are fixed per environment), and
    // there is no stream to notify on.
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false }
    },
    serverInfo: { name: "roost", version: "0.1.0" },
    instructions: (await target.environment()).description
  }),
  // Asks the object, so a session deleted under its client answers 404.
  ping: async (target) => {
    await target.environment();
    return {};
  },
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listResourceTemplates,
  "resources/read": readResource
};

/**
 * Answers a request. A session that no longer exists is thrown on (the
 * route makes it a 404); other refusals are JSON-RPC errors.
 */
export const dispatchMcp = async (
  message: JsonRpcMessage & { id: string | number },
  target: McpTarget
): Promise<JsonRpcResponse> => {
  const base = { jsonrpc: "2.0" as const, id: message.id };
  const method = Object.hasOwn(methods, message.method)
    ? methods[message.method]
    : undefined;
  if (method === undefined) {
    return {
      ...base,
      error: {
        code: JSONRPC_ERRORS.methodNotFound,
        message: `Method not found: ${message.method}`
      }
    };
  }
  const { params } = message;
  if (
    params !== undefined &&
    (params === null || typeof params !== "object" || Array.isArray(params))
  ) {
    return {
      ...base,
      error: {
        code: JSONRPC_ERRORS.invalidParams,
        message: `Invalid params: ${message.method} takes an object (or none).`
      }
    };
  }
  try {
    return { ...base, result: await method(target, params) };
  } catch (error) {
    if (error instanceof RpcFailure) return { ...base, error: error.error };
    if (error instanceof RoostError && !isSessionGone(error)) {
      return { ...base, error: fromRoost(error) };
    }
    throw error;
  }
};
