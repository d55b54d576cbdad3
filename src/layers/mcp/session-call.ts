/**
 * @module A tool called by an MCP client, run by the session as a direct
 * call is (the `call` operation), streamed while it runs: each update the
 * tool reports (progress, log lines), each request it sends the client,
 * then its outcome, one JSON frame per line. The worker turns the frames
 * into MCP's (session-stream.ts); a call that must ask a stateless client
 * first, or asked for what the client lacks, ends without a trace.
 */

import * as z from "zod";
import { RoostError, toErrorBody } from "../../errors";
import type { JsonObject } from "../../json";
import { lazy } from "../../lazy";
import {
  JsonObjectSchema,
  NameSchema,
  STORE_RESOURCE_PREFIX,
  type ToolInvocationResponse
} from "../../protocol";
import { directCall } from "../../session/direct-call";
import type { SessionRuntime } from "../../session/runtime";
import { readMcpClient } from "../../storage/mcp-client";
import { LOG_LEVELS, type LogLevel, type Update } from "../../store/result";
import {
  type ClientRequest,
  InputRequired,
  MissingCapability
} from "../../tools/ask";
import type { ExecutionHooks } from "../../tools/types";
import { liveClient, replayedClient } from "./client-asks";

/** The object's internal path the worker sends a call to. */
export const MCP_CALL_PATH = "/mcp/call";

export const McpCallSchema = lazy(() =>
  z.object({
    tool: NameSchema(),
    arguments: JsonObjectSchema(),
    /**
     * What the client declared (MCP's ClientCapabilities): a stateless
     * request's own; without it, what the client declared at initialize.
     */
    capabilities: JsonObjectSchema().optional(),
    /**
     * True when the client can be asked over this call's stream (the
     * handshake era); false for a stateless client, which is answered
     * input-required and calls again with `answers`.
     */
    live: z.boolean(),
    answers: z.record(z.string(), JsonObjectSchema()).optional(),
    /**
     * The least severe log line the client wants (a stateless request's
     * `_meta` logLevel); without it, what logging/setLevel set, and
     * without that, none.
     */
    log_level: z.enum(LOG_LEVELS).optional()
  })
);
export type McpCall = z.infer<ReturnType<typeof McpCallSchema>>;

/** One line of the call's stream. */
export type CallFrame =
  | { update: Update }
  /** A resource the client subscribed to changed (a Result stored under its key). */
  | { updated: string }
  | { ask: { id: string } & ClientRequest }
  | { done: ToolInvocationResponse }
  | { input: Record<string, ClientRequest> }
  | { missing: Record<string, JsonObject> }
  | { error: ReturnType<typeof toErrorBody> };

const refused = (error: unknown): Response => {
  const body = toErrorBody(error);
  return Response.json(
    { error: body },
    { status: error instanceof RoostError ? error.status : 500 }
  );
};

const frameOf = (error: unknown): CallFrame =>
  error instanceof InputRequired
    ? { input: error.requests }
    : error instanceof MissingCapability
      ? { missing: error.capabilities }
      : { error: toErrorBody(error) };

/**
 * Each update also goes to the stream, a log line only at `level` or
 * above, and a store key the client subscribed to says it changed.
 */
const teed = (
  hooks: ExecutionHooks,
  send: (frame: CallFrame) => void,
  level: LogLevel | undefined,
  subscribed: ReadonlySet<string>
): ExecutionHooks => ({
  ...hooks,
  onResult: (call, result, stored) => {
    hooks.onResult?.(call, result, stored);
    const uri = `${STORE_RESOURCE_PREFIX}${stored.tool}/${stored.name}`;
    if (subscribed.has(uri)) send({ updated: uri });
  },
  onUpdate: (call, update) => {
    hooks.onUpdate?.(call, update);
    if (update.kind === "log" && !atLeast(update.level, level)) return;
    send({ update });
  }
});

const atLeast = (level: LogLevel, least: LogLevel | undefined): boolean =>
  least !== undefined && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(least);

/** Answers a call the object admitted with `act` (index.ts). */
export const serveMcpCall = async (
  runtime: SessionRuntime,
  request: Request
): Promise<Response> => {
  let call: McpCall;
  try {
    const parsed = McpCallSchema().safeParse(await request.json());
    if (!parsed.success) {
      throw new RoostError("invalid_request", "Not an MCP call.");
    }
    call = parsed.data;
  } catch (error) {
    return refused(error);
  }
  const { readable, writable } = new TransformStream<Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const send = (frame: CallFrame) => {
    // A client gone mid-call changes nothing: the call still commits.
    writer.write(encoder.encode(`${JSON.stringify(frame)}\n`)).catch(() => {});
  };
  // A stateless client says everything in its request; only a client of
  // the handshake era has something kept (a read of one row).
  const kept =
    call.capabilities === undefined ? readMcpClient(runtime.shared.sql) : {};
  const capabilities = call.capabilities ?? kept.capabilities ?? {};
  const live = call.live
    ? liveClient(runtime, capabilities, (id, r) => send({ ask: { id, ...r } }))
    : undefined;
  const client = live ?? replayedClient(capabilities, call.answers ?? {});
  const level = call.log_level ?? kept.log_level;
  void runtime.commits
    .mutate("call", undefined, (m) =>
      directCall(
        runtime.shared,
        {
          ...m,
          hooks: teed(m.hooks, send, level, new Set(kept.subscriptions))
        },
        { tool: call.tool, arguments: call.arguments },
        undefined,
        client
      )
    )
    .then(
      (done) => send({ done }),
      (error) => send(frameOf(error))
    )
    .finally(() => {
      live?.close();
      writer.close().catch(() => {});
    });
  return new Response(readable, {
    headers: { "content-type": "application/x-ndjson" }
  });
};
