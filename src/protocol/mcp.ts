/** @module The Model Context Protocol's wire shapes Roost serves: JSON-RPC 2.0 messages and the methods it answers. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema } from "./json-value";

/**
 * The revisions negotiated by `initialize`, newest first; an initialize
 * asking for another gets the newest.
 */
export const MCP_PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05"
] as const;

/**
 * The stateless revisions: no initialize, no session header; every request
 * names its revision in `_meta` and in the MCP-Protocol-Version header.
 */
export const MCP_MODERN_VERSIONS = ["2026-07-28"] as const;

/** The header that names an MCP client's session on every message after initialize. */
export const MCP_SESSION_HEADER = "Mcp-Session-Id";
export const MCP_VERSION_HEADER = "MCP-Protocol-Version";
/** Routing headers of the stateless revisions: they must agree with the body. */
export const MCP_METHOD_HEADER = "Mcp-Method";
export const MCP_NAME_HEADER = "Mcp-Name";

/** The `_meta` keys a stateless request carries, and the one its results may. */
export const MCP_META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  /** The least severe log line a stateless request wants streamed. */
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  /**
   * Roost's own key: the session a stateless request to an environment's
   * endpoint continues (`<session_id>.<token>`), and that a tools/call which
   * started one answers.
   */
  session: "dev.roost/session"
} as const;

/** JSON-RPC 2.0 error codes. */
export const JSONRPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** Implementation-defined: the session refused (not reset, rate limited, too large…). */
  server: -32000,
  /** MCP's code for a resource URI that names nothing (before 2026-07-28). */
  resourceNotFound: -32002,
  /** 2026-07-28: a routing header missing, or not what the body says. */
  headerMismatch: -32020,
  /** 2026-07-28: the request needs a client capability the client did not declare. */
  missingCapability: -32021,
  /** 2026-07-28: a protocol version the server does not speak. */
  unsupportedVersion: -32022
} as const;

const RequestIdSchema = lazy(() => z.union([z.string(), z.number().int()]));

/**
 * A request or a notification (no id). Params are checked per method, so
 * a well-formed request with params that are not an object gets -32602
 * with its id rather than a bare -32600.
 */
export const JsonRpcMessageSchema = lazy(() =>
  z
    .object({
      jsonrpc: z.literal("2.0"),
      id: RequestIdSchema().optional(),
      method: z.string().min(1),
      params: z
        .unknown()
        .optional()
        .meta({ description: "An object, for every method Roost answers." })
    })
    .meta({
      id: "McpMessage",
      description:
        "A JSON-RPC 2.0 request (with id) or notification (without) of the Model Context Protocol."
    })
);
export type JsonRpcMessage = z.infer<ReturnType<typeof JsonRpcMessageSchema>>;

/**
 * A response the client sends (to a server request): accepted and ignored.
 * Strict, with exactly one of result and error, so a malformed request is
 * never mistaken for one and silently dropped.
 */
export const JsonRpcClientResponseSchema = lazy(() =>
  z.union([
    z.strictObject({
      jsonrpc: z.literal("2.0"),
      id: RequestIdSchema(),
      result: JsonObjectSchema()
    }),
    z.strictObject({
      jsonrpc: z.literal("2.0"),
      id: RequestIdSchema().nullable(),
      error: z.looseObject({ code: z.number().int(), message: z.string() })
    })
  ])
);

export const ToolsCallParamsSchema = lazy(() =>
  z.object({
    name: z.string().min(1),
    arguments: JsonObjectSchema().optional()
  })
);

/** `roost://environment/<tool>/<name>`: one key of the session's environment store. */
export const STORE_RESOURCE_PREFIX = "roost://environment/";

export const ResourcesReadParamsSchema = lazy(() =>
  z.object({
    uri: z.string().min(1)
  })
);

export const InitializeParamsSchema = lazy(() =>
  z.looseObject({
    protocolVersion: z.string().optional(),
    capabilities: JsonObjectSchema().optional()
  })
);

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: string | number | null; result: unknown }
  | { jsonrpc: "2.0"; id: string | number | null; error: JsonRpcError };
