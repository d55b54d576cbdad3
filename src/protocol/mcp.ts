/** @module The Model Context Protocol's wire shapes Roost serves: JSON-RPC 2.0 messages and the methods it answers. */

import { z } from "zod";
import { JsonObjectSchema } from "./json-value";

/** Newest first; an initialize asking for another gets the newest. */
export const MCP_PROTOCOL_VERSIONS = [
  "2025-06-18",
  "2025-03-26",
  "2024-11-05"
] as const;

/** JSON-RPC 2.0 error codes. */
export const JSONRPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** Implementation-defined: the session refused (not reset, rate limited, too large…). */
  server: -32000,
  /** MCP's code for a resource URI that names nothing. */
  resourceNotFound: -32002
} as const;

const RequestIdSchema = z.union([z.string(), z.number().int()]);

/** A request or a notification (no id). */
export const JsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: RequestIdSchema.optional(),
    method: z.string().min(1),
    params: JsonObjectSchema.optional()
  })
  .meta({
    id: "McpMessage",
    description:
      "A JSON-RPC 2.0 request (with id) or notification (without) of the Model Context Protocol."
  });
export type JsonRpcMessage = z.infer<typeof JsonRpcMessageSchema>;

/** A response the client sends (to a server request): accepted and ignored. */
export const JsonRpcClientResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema.nullable(),
  result: z.unknown().optional(),
  error: z.unknown().optional()
});

export const ToolsCallParamsSchema = z.object({
  name: z.string().min(1),
  arguments: JsonObjectSchema.optional()
});

/** `roost://environment/<tool>/<name>`: one key of the session's environment store. */
export const STORE_RESOURCE_PREFIX = "roost://environment/";

export const ResourcesReadParamsSchema = z.object({
  uri: z.string().min(1)
});

export const InitializeParamsSchema = z.looseObject({
  protocolVersion: z.string().optional()
});

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: string | number | null; result: unknown }
  | { jsonrpc: "2.0"; id: string | number | null; error: JsonRpcError };
