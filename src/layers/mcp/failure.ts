/** @module JSON-RPC errors of the MCP methods, and how Roost's refusals become them. */

import * as z from "zod";
import { RoostError } from "../../errors";
import { JSONRPC_ERRORS, type JsonRpcError } from "../../protocol";

/** Thrown by a method to answer with this JSON-RPC error. */
export class RpcFailure extends Error {
  constructor(readonly error: JsonRpcError) {
    super(error.message);
  }
}

export const invalidParams = (message: string): RpcFailure =>
  new RpcFailure({ code: JSONRPC_ERRORS.invalidParams, message });

/** A method's params, or -32602 naming what is wrong with them. */
export const parseParams = <T>(schema: z.ZodType<T>, params: unknown): T => {
  const r = schema.safeParse(params ?? {});
  if (!r.success) {
    throw invalidParams(`Invalid params: ${z.prettifyError(r.error)}`);
  }
  return r.data;
};

/** The tool a `not_found` is about (an unknown tool or store key), if any. */
export const missingTool = (error: RoostError): string | undefined => {
  const tool = (error.details as { tool?: unknown } | undefined)?.tool;
  return error.code === "not_found" && typeof tool === "string"
    ? tool
    : undefined;
};

/**
 * A session that no longer exists is an HTTP 404, not a JSON-RPC error:
 * MCP clients re-initialize on 404, and that is the only way forward.
 */
export const isSessionGone = (error: unknown): error is RoostError =>
  error instanceof RoostError &&
  error.code === "not_found" &&
  missingTool(error) === undefined;

/**
 * Any other Roost refusal becomes a JSON-RPC error: bad arguments are
 * invalid params; the rest (not reset, rate limited, too large) a server
 * error carrying Roost's code.
 */
export const fromRoost = (error: RoostError): JsonRpcError => ({
  code:
    error.code === "invalid_request" || error.code === "invalid_name"
      ? JSONRPC_ERRORS.invalidParams
      : JSONRPC_ERRORS.server,
  message: error.message,
  data: {
    code: error.code,
    ...(error.details ? { details: error.details } : {})
  }
});

/**
 * What an author's prompt or resource threw: -32603 with its message, the
 * stack in the log. A RoostError or a JSON-RPC failure it threw on purpose
 * passes as it is.
 */
export const authorFailed = (what: string, error: unknown): unknown => {
  if (error instanceof RpcFailure || error instanceof RoostError) return error;
  console.error(`Roost: ${what} threw`, error);
  return new RpcFailure({
    code: JSONRPC_ERRORS.internal,
    message: `${what} failed: ${error instanceof Error ? error.message : String(error)}`
  });
};
