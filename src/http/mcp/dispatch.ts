/** @module Answers one MCP JSON-RPC request for one session: the method table and the error mapping. */

// Why not @modelcontextprotocol/sdk's server (tried with 1.32.2: McpServer or
// the low-level Server, WebStandardStreamableHTTPServerTransport, the
// cfworker validator). It runs in workerd, but it grows the deployed worker
// from 229 to 322–356 KiB gzipped (ajv, zod/v3 and zod-to-json-schema come
// along even when another validator is passed), over the 250 KiB budget; and
// it would still leave everything Roost-specific to this code: the session
// header and its 404 (the SDK answers errors inside a 200), tool lists built
// per session from the environment's JSON schemas, arguments validated in the
// session, error codes with `data`, resources over the store, and the
// protocol versions offered, which the SDK cannot narrow. What remains
// hand-written is small: this table, the transport checks and the mapping.

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
import { TASKS_CAPABILITY, taskMethods } from "./tasks";
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
      parseParams(InitializeParamsSchema(), params).protocolVersion
    ),
    // Nothing changes under a client (tools are fixed per environment), and
    // there is no stream to notify on.
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
      tasks: TASKS_CAPABILITY
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
  "resources/read": readResource,
  ...taskMethods
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
