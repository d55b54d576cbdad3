/** @module MCP's Streamable HTTP transport, stateless: one JSON-RPC message in, one JSON answer out. */

import { fromErrorBody, RoostError } from "../../errors";
import { readCapped } from "../../http/body";
import {
  checkJsonLimits,
  JSONRPC_ERRORS,
  JsonRpcClientResponseSchema,
  JsonRpcMessageSchema
} from "../../protocol";
import type { Limits } from "../../protocol/limits";
import { dispatchMcp } from "./dispatch";
import {
  isRefusal,
  type Revision,
  readRevision,
  requestMeta
} from "./revision";
import type { McpTarget } from "./target";

/** A JSON-RPC error as the whole HTTP answer. */
export const rpcError = (
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  data?: unknown
): Response =>
  Response.json(
    {
      jsonrpc: "2.0",
      id,
      error: { code, message, ...(data === undefined ? {} : { data }) }
    },
    { status }
  );

/**
 * What a POST holds once read: a finished response (a malformed message),
 * a notification or client response to accept with 202 once the caller
 * has checked whose it is, or a request to answer.
 */
export type McpRead =
  | { kind: "answered"; response: Response }
  | { kind: "accepted" }
  | McpRequest;

export interface McpRequest {
  kind: "request";
  id: string | number;
  method: string;
  revision: Revision;
  params: unknown;
  /** The request's `_meta`, where a stateless client names its session. */
  meta: Record<string, unknown> | undefined;
  answer(
    target: McpTarget,
    headers?: Record<string, string>
  ): Promise<Response>;
}

/** The id to echo in an error: only one a request could have carried. */
const idOf = (body: unknown): string | number | null => {
  const id =
    typeof body === "object" && body !== null
      ? (body as { id?: unknown }).id
      : undefined;
  return typeof id === "string" || Number.isInteger(id)
    ? (id as string | number)
    : null;
};

/**
 * Reads one POSTed message. Parse errors and malformed or batched messages
 * are answered 400 at once; notifications and client responses are
 * accepted (202, no body), since Roost never waits on them.
 */
export const readMcp = async (
  request: Request,
  limits: Limits
): Promise<McpRead> => {
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
  const message = JsonRpcMessageSchema().safeParse(body);
  if (!message.success) {
    if (JsonRpcClientResponseSchema().safeParse(body).success) {
      return { kind: "accepted" };
    }
    return {
      kind: "answered",
      response: rpcError(
        400,
        JSONRPC_ERRORS.invalidRequest,
        'Invalid request: expected one JSON-RPC 2.0 message {jsonrpc: "2.0", id?: string | integer, method: non-empty string, params?: object}, or a response {jsonrpc: "2.0", id, result | error}.',
        idOf(body)
      )
    };
  }
  const m = message.data;
  if (m.id === undefined) return { kind: "accepted" };
  const id = m.id;
  const revision = readRevision(request.headers, m);
  if (isRefusal(revision)) {
    const { error } = revision;
    return {
      kind: "answered",
      response: rpcError(400, error.code, error.message, id, error.data)
    };
  }
  return {
    kind: "request",
    id,
    method: m.method,
    revision,
    params: m.params,
    meta: requestMeta(m),
    answer: async (target, headers = {}) => {
      const answer = await dispatchMcp({ ...m, id }, target, revision);
      // A stateless client learns that a method is not served from a 404
      // (and falls back to initialize); there is no session header to send.
      const unknown =
        revision.modern &&
        "error" in answer &&
        answer.error.code === JSONRPC_ERRORS.methodNotFound;
      return Response.json(answer, {
        status: unknown ? 404 : 200,
        headers: revision.modern ? {} : headers
      });
    }
  };
};

/**
 * GET would open a server-sent stream; Roost sends nothing unasked. Thrown,
 * so the one error writer answers it, `Allow` included.
 */
export const noStream = (allow: string[]): never => {
  throw new RoostError(
    "method_not_allowed",
    "This MCP endpoint offers no server-sent stream; POST messages to it.",
    { allow }
  );
};
