/** @module Answers one MCP JSON-RPC message for one session: initialize, ping, tools/list, tools/call. */

import { z } from "zod";
import type { Environment } from "../../environment/define-environment";
import { RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import { contentText } from "../../messages/build";
import {
  InitializeParamsSchema,
  JSONRPC_ERRORS,
  type JsonRpcError,
  type JsonRpcMessage,
  type JsonRpcResponse,
  MCP_PROTOCOL_VERSIONS,
  type ToolInvocationResponse,
  ToolsCallParamsSchema
} from "../../protocol";

/** What a message may reach: the session's environment and its direct tool call. */
export interface McpTarget {
  /** Looked up only by the methods that need it (tools/call does not). */
  environment(): Promise<Environment>;
  callTool(name: string, args: JsonObject): Promise<ToolInvocationResponse>;
}

class RpcFailure extends Error {
  constructor(readonly error: JsonRpcError) {
    super(error.message);
  }
}

const invalidParams = (message: string, data?: unknown) =>
  new RpcFailure({
    code: JSONRPC_ERRORS.invalidParams,
    message,
    ...(data === undefined ? {} : { data })
  });

const parse = <T>(schema: z.ZodType<T>, params: unknown): T => {
  const r = schema.safeParse(params ?? {});
  if (!r.success) {
    throw invalidParams(`Invalid params: ${z.prettifyError(r.error)}`);
  }
  return r.data;
};

/**
 * A Roost refusal becomes a JSON-RPC error: bad arguments are invalid
 * params; anything else the session refused (not reset, rate limited, too
 * large) is a server error carrying Roost's code.
 */
const fromRoost = (error: RoostError): RpcFailure =>
  new RpcFailure({
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

const methods: Record<
  string,
  (target: McpTarget, params: unknown) => Promise<unknown>
> = {
  initialize: async (target, params) => {
    const { protocolVersion } = parse(InitializeParamsSchema, params);
    const supported = (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(
      protocolVersion ?? ""
    );
    return {
      protocolVersion: supported ? protocolVersion : MCP_PROTOCOL_VERSIONS[0],
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: "roost", version: "0.1.0" },
      instructions: (await target.environment()).description
    };
  },
  ping: async () => ({}),
  "tools/list": async (target) => ({
    // The model-facing schemas: parameters filled from state are hidden.
    tools: (await target.environment()).toolSchemas.map((t) => ({
      name: t.function.name,
      description: t.function.description ?? "",
      inputSchema: t.function.parameters
    }))
  }),
  "tools/call": async (target, params) => {
    const call = parse(ToolsCallParamsSchema, params);
    let out: ToolInvocationResponse;
    try {
      out = await target.callTool(call.name, call.arguments ?? {});
    } catch (error) {
      if (
        error instanceof RoostError &&
        error.code === "not_found" &&
        (error.details as { tool?: unknown } | undefined)?.tool === call.name
      ) {
        throw invalidParams(`Unknown tool: ${call.name}`);
      }
      if (error instanceof RoostError) throw fromRoost(error);
      throw error;
    }
    return {
      content: [{ type: "text", text: contentText(out.content) }],
      isError: out.is_error,
      // What the call stored, for clients that read structured output.
      structuredContent: { results: out.results }
    };
  }
};

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
  try {
    return { ...base, result: await method(target, message.params) };
  } catch (error) {
    if (error instanceof RpcFailure) return { ...base, error: error.error };
    if (error instanceof RoostError) {
      return { ...base, error: fromRoost(error).error };
    }
    throw error;
  }
};
