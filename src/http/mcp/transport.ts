/** @module MCP's Streamable HTTP transport, stateless: one JSON-RPC message in, one JSON answer out. */

import { fromErrorBody } from "../../errors";
import {
  checkJsonLimits,
  JSONRPC_ERRORS,
  JsonRpcClientResponseSchema,
  JsonRpcMessageSchema,
  MCP_PROTOCOL_VERSIONS
} from "../../protocol";
import type { Limits } from "../../protocol/limits";
import { readCapped } from "../body";
import { dispatchMcp } from "./dispatch";
import type { McpTarget } from "./target";

const rpcError = (
  status: number,
  code: number,
  message: string,
  id: string | number | null = null
): Response =>
  Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });

/** What a POST holds once read: a message to answer, or a finished response. */
export type McpRead =
  | { kind: "answered"; response: Response }
  | {
      kind: "request";
      id: string | number;
      method: string;
      answer(
        target: McpTarget,
        headers?: Record<string, string>
      ): Promise<Response>;
    };

/**
 * Reads one POSTed message. Parse errors and malformed or batched messages
 * are answered 400 at once; notifications and client responses with 202 (no
 * body), since Roost never waits on them.
 */
export const readMcp = async (
  request: Request,
  limits: Limits
): Promise<McpRead> => {
  const version = request.headers.get("MCP-Protocol-Version");
  if (
    version !== null &&
    !(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version)
  ) {
    return {
      kind: "answered",
      response: rpcError(
        400,
        JSONRPC_ERRORS.invalidRequest,
        `Unsupported MCP-Protocol-Version ${version}; supported: ${MCP_PROTOCOL_VERSIONS.join(", ")}.`
      )
    };
  }
  // The same size, depth and string limits as every other body.
  const raw = await readCapped(request, limits.requestBodyBytes);
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return {
      kind: "answered",
      response: rpcError(
        400,
        JSONRPC_ERRORS.parse,
        "Parse error: the body is not JSON."
      )
    };
  }
  const limitError = checkJsonLimits(body, limits);
  if (limitError) throw fromErrorBody(limitError);
  if (Array.isArray(body)) {
    return {
      kind: "answered",
      response: rpcError(
        400,
        JSONRPC_ERRORS.invalidRequest,
        "Batches are not supported (MCP 2025-06-18 removed them): send one message per request."
      )
    };
  }
  const message = JsonRpcMessageSchema.safeParse(body);
  if (!message.success) {
    if (JsonRpcClientResponseSchema.safeParse(body).success) {
      return {
        kind: "answered",
        response: new Response(null, { status: 202 })
      };
    }
    const id = (body as { id?: unknown } | null)?.id;
    return {
      kind: "answered",
      response: rpcError(
        400,
        JSONRPC_ERRORS.invalidRequest,
        'Invalid request: expected a JSON-RPC 2.0 message {jsonrpc: "2.0", id?, method, params?}.',
        typeof id === "string" || typeof id === "number" ? id : null
      )
    };
  }
  const m = message.data;
  if (m.id === undefined) {
    return { kind: "answered", response: new Response(null, { status: 202 }) };
  }
  const id = m.id;
  return {
    kind: "request",
    id,
    method: m.method,
    answer: async (target, headers = {}) =>
      Response.json(await dispatchMcp({ ...m, id }, target), { headers })
  };
};

/** GET would open a server-sent stream; Roost sends nothing unasked. */
export const mcpGet = (): Response =>
  new Response(
    JSON.stringify({
      error: {
        code: "method_not_allowed",
        message:
          "This MCP endpoint offers no server-sent stream; POST messages to it."
      }
    }),
    {
      status: 405,
      headers: { Allow: "POST, DELETE", "content-type": "application/json" }
    }
  );
