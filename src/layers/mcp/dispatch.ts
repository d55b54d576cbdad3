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

import * as z from "zod";
import { RoostError } from "../../errors";
import { lazy } from "../../lazy";
import {
  InitializeParamsSchema,
  JSONRPC_ERRORS,
  type JsonRpcError,
  type JsonRpcMessage,
  type JsonRpcResponse,
  MCP_META,
  MCP_PROTOCOL_VERSIONS
} from "../../protocol";
import { TASKS_CAPABILITY } from "../../protocol/mcp-tasks";
import { LOG_LEVELS } from "../../store/result";
import { complete } from "./completion";
import type { Exchange } from "./exchange";
import { fromRoost, isSessionGone, parseParams, RpcFailure } from "./failure";
import { getPrompt, listPrompts } from "./prompts";
import {
  listResources,
  listResourceTemplates,
  readResource
} from "./resources";
import { SUPPORTED_VERSIONS } from "./revision";
import type { McpTarget } from "./target";
import { taskMethods } from "./tasks";
import { extensionMethods, TASKS_EXTENSION } from "./tasks-extension";
import { callTool, listTools } from "./tools";

/** Newest supported unless the client asked for one Roost speaks. */
const negotiate = (asked: string | undefined): string =>
  (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked ?? "")
    ? (asked as string)
    : MCP_PROTOCOL_VERSIONS[0];

const SERVER_INFO = { name: "roost", version: "0.1.0" };

// Nothing changes under a client (tools are fixed per episode), and no
// stream stays open to notify on.
const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
  completions: {}
};

/** The handshake era's own: logging/setLevel, and subscriptions to resources. */
const LEGACY_CAPABILITIES = {
  ...CAPABILITIES,
  resources: { subscribe: true, listChanged: false },
  logging: {}
};

type Method = (
  target: McpTarget,
  params: unknown,
  exchange: Exchange
) => Promise<unknown>;

/** Methods of both eras. */
const shared: Record<string, Method> = {
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listResourceTemplates,
  "resources/read": readResource,
  "prompts/list": listPrompts,
  "prompts/get": getPrompt,
  "completion/complete": complete
};

const LevelParamsSchema = lazy(() => z.object({ level: z.enum(LOG_LEVELS) }));
const UriParamsSchema = lazy(() => z.object({ uri: z.string().min(1) }));

/** The handshake's era: initialize, and ping to check a session lives. */
const legacy: Record<string, Method> = {
  ...shared,
  ...taskMethods,
  initialize: async (target, params) => {
    const asked = parseParams(InitializeParamsSchema(), params);
    const version = negotiate(asked.protocolVersion);
    // What a tool may ask this client, kept for its calls.
    if (asked.capabilities !== undefined) {
      await target.recordClient({ capabilities: asked.capabilities });
    }
    return {
      protocolVersion: version,
      // Tasks came with 2025-11-25.
      capabilities:
        version >= "2025-11-25"
          ? { ...LEGACY_CAPABILITIES, tasks: TASKS_CAPABILITY }
          : LEGACY_CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: (await target.environment()).description
    };
  },
  // Asks the object, so a session deleted under its client answers 404.
  ping: async (target) => {
    await target.environment();
    return {};
  },
  "logging/setLevel": async (target, params) => {
    const { level } = parseParams(LevelParamsSchema(), params);
    await target.recordClient({ log_level: level });
    return {};
  },
  // A store key changes by a tool's call: a call this client makes tells
  // it on its own stream (notifications/resources/updated) when a key it
  // subscribed to changed. No stream stays open for others' calls.
  "resources/subscribe": async (target, params) => {
    const { uri } = parseParams(UriParamsSchema(), params);
    await target.recordClient({ subscribe: uri });
    return {};
  },
  "resources/unsubscribe": async (target, params) => {
    const { uri } = parseParams(UriParamsSchema(), params);
    await target.recordClient({ unsubscribe: uri });
    return {};
  }
};

/** The stateless era: no handshake; discover tells what initialize did. */
const modern: Record<string, Method> = {
  ...shared,
  ...extensionMethods,
  "server/discover": async (target) => ({
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: {
      ...CAPABILITIES,
      extensions: { [TASKS_EXTENSION]: {} }
    },
    instructions: (await target.environment()).description
  })
};

/**
 * How long a stateless client may reuse a result. A session's lists change
 * with its episode (a reset may pick other tools; every step may store), so
 * they are not reused; what is fixed per deployment is, for a minute. All
 * are private: they sit behind the session's or the deployment's keys.
 */
const cached = (
  method: string
): { ttlMs: number; cacheScope: "private" } | undefined => {
  switch (method) {
    case "server/discover":
    case "resources/templates/list":
      return { ttlMs: 60_000, cacheScope: "private" };
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "resources/read":
      return { ttlMs: 0, cacheScope: "private" };
    default:
      return undefined;
  }
};

/** A stateless result: complete, cache fields where due, and who answered. */
const modernResult = (method: string, result: unknown): unknown => {
  const body = result as Record<string, unknown>;
  return {
    ...body,
    ...cached(method),
    // A call answered as a task says so (tasks-extension.ts).
    resultType: body.resultType ?? "complete",
    _meta: {
      ...(body._meta as Record<string, unknown> | undefined),
      [MCP_META.serverInfo]: SERVER_INFO
    }
  };
};

/** The stateless era folded MCP's resource-not-found into invalid params. */
const modernError = (error: JsonRpcError): JsonRpcError =>
  error.code === JSONRPC_ERRORS.resourceNotFound
    ? { ...error, code: JSONRPC_ERRORS.invalidParams }
    : error;

/**
 * Answers a request. A session that no longer exists, or a credential it
 * no longer honours, is thrown on (the route answers 404 or 401); other
 * refusals are JSON-RPC errors.
 */
export const dispatchMcp = async (
  message: JsonRpcMessage & { id: string | number },
  target: McpTarget,
  exchange: Exchange
): Promise<JsonRpcResponse> => {
  const { revision } = exchange;
  const base = { jsonrpc: "2.0" as const, id: message.id };
  const table = revision.modern ? modern : legacy;
  const method = Object.hasOwn(table, message.method)
    ? table[message.method]
    : undefined;
  if (method === undefined) {
    return {
      ...base,
      error: {
        code: JSONRPC_ERRORS.methodNotFound,
        message:
          revision.modern && Object.hasOwn(legacy, message.method)
            ? `Method not found: ${message.method} belongs to the revisions with a handshake; ${revision.version} has none.`
            : `Method not found: ${message.method}`
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
  const failed = (error: JsonRpcError): JsonRpcResponse => ({
    ...base,
    error: revision.modern ? modernError(error) : error
  });
  try {
    const result = await method(target, params, exchange);
    return {
      ...base,
      result: revision.modern ? modernResult(message.method, result) : result
    };
  } catch (error) {
    if (error instanceof RpcFailure) {
      return failed(error.error);
    }
    // A revoked credential is the transport's 401, as on every route: an
    // OAuth client reads it as "authorize again", a JSON-RPC error in a 200
    // it would only show the model.
    if (isSessionGone(error) || !(error instanceof RoostError)) throw error;
    if (error.code === "unauthorized") throw error;
    return failed(fromRoost(error));
  }
};
