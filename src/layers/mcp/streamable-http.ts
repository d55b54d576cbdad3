/**
 * @module MCP's Streamable HTTP transport: one JSON-RPC message in; one
 * JSON answer out, or server-sent events when the method sends the client
 * something while it runs.
 */

import { fromErrorBody, RoostError } from "../../errors";
import { readCapped } from "../../http/body";
import type { SigningKeys } from "../../http/secrets";
import type { JsonObject } from "../../json";
import {
  checkJsonLimits,
  JSONRPC_ERRORS,
  JsonRpcClientResponseSchema,
  type JsonRpcMessage,
  JsonRpcMessageSchema,
  type JsonRpcResponse
} from "../../protocol";
import type { Limits } from "../../protocol/limits";
import { dispatchMcp } from "./dispatch";
import type { Exchange, Outgoing } from "./exchange";
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
 * a notification to accept with 202 once the caller has checked whose it
 * is, a client's answer to what a tool asked it (handed to the session,
 * then 202), or a request to answer.
 */
export type McpRead =
  | { kind: "answered"; response: Response }
  | { kind: "accepted" }
  | { kind: "response"; id: string; answer: ClientAnswer }
  | McpRequest;

export type ClientAnswer =
  | { result: JsonObject }
  | { error: { code: number; message: string } };

export interface AnswerOptions {
  /** Headers of the handshake era's answers (its Mcp-Session-Id). */
  headers?: Record<string, string>;
  /** The session credential a stateless call runs in (exchange.ts). */
  session?: string;
  /** Added to the result's `_meta` (a started session's credential). */
  resultMeta?: Record<string, unknown>;
}

export interface McpRequest {
  kind: "request";
  id: string | number;
  method: string;
  revision: Revision;
  params: unknown;
  /** The request's `_meta`, where a stateless client names its session. */
  meta: Record<string, unknown> | undefined;
  answer(target: McpTarget, options?: AnswerOptions): Promise<Response>;
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
 * The HTTP status of an answer: a stateless client learns that a method
 * is not served from a 404 (and falls back to initialize), and that it
 * lacks a capability a call needs from a 400 (SEP-2575).
 */
const statusOf = (answer: JsonRpcResponse, revision: Revision): number => {
  if (!revision.modern || !("error" in answer)) return 200;
  if (answer.error.code === JSONRPC_ERRORS.methodNotFound) return 404;
  if (answer.error.code === JSONRPC_ERRORS.missingCapability) return 400;
  if (answer.error.code === JSONRPC_ERRORS.headerMismatch) return 400;
  return 200;
};

const encoder = new TextEncoder();
const event = (message: unknown): Uint8Array =>
  encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/**
 * Answers with JSON, unless the method sends the client something while
 * it runs (progress, a log line, a question): then with server-sent
 * events, those first and the answer last. A client that takes no stream
 * (no text/event-stream in Accept) gets the answer alone.
 */
const answerOn = async (
  request: Request,
  message: JsonRpcMessage & { id: string | number },
  target: McpTarget,
  exchange: Omit<Exchange, "send">,
  headers: Record<string, string>,
  resultMeta: Record<string, unknown> | undefined
): Promise<Response> => {
  const streams = (request.headers.get("accept") ?? "").includes(
    "text/event-stream"
  );
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let open: (response: Response) => void = () => {};
  const opened = new Promise<Response>((resolve) => {
    open = resolve;
  });
  const send = (outgoing: Outgoing) => {
    if (writer === undefined) {
      const { readable, writable } = new TransformStream<Uint8Array>();
      writer = writable.getWriter();
      open(
        new Response(readable, {
          headers: {
            ...headers,
            "content-type": "text/event-stream",
            "cache-control": "no-cache"
          }
        })
      );
    }
    writer.write(event(outgoing)).catch(() => {});
  };
  const last = (answer: unknown) => {
    const w = writer as WritableStreamDefaultWriter<Uint8Array>;
    w.write(event(answer))
      .then(() => w.close())
      .catch(() => {});
  };
  const done = dispatchMcp(message, target, {
    ...exchange,
    send: streams ? send : undefined
  }).then(
    (answer): Response | undefined => {
      if (resultMeta !== undefined && "result" in answer) {
        const result = answer.result as { _meta?: Record<string, unknown> };
        result._meta = { ...result._meta, ...resultMeta };
      }
      if (writer === undefined) {
        return Response.json(answer, {
          status: statusOf(answer, exchange.revision),
          headers
        });
      }
      last(answer);
      return undefined;
    },
    (error: unknown): undefined => {
      if (writer === undefined) throw error;
      // The stream is open, so its last event says what went wrong.
      console.error("Roost: an MCP request failed mid-stream", error);
      last({
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: JSONRPC_ERRORS.internal,
          message:
            error instanceof RoostError ? error.message : "Internal error."
        }
      });
      return undefined;
    }
  );
  return (await Promise.race([done, opened])) ?? (await opened);
};

/**
 * Reads one POSTed message. Parse errors and malformed or batched messages
 * are answered 400 at once; notifications are accepted (202, no body), and
 * so are a client's answers, once handed to the session.
 */
export const readMcp = async (
  request: Request,
  limits: Limits,
  keys: () => Promise<SigningKeys>
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
    const response = JsonRpcClientResponseSchema().safeParse(body);
    if (response.success) {
      const { id, ...rest } = response.data;
      const answer =
        "result" in rest ? { result: rest.result } : { error: rest.error };
      return id === null
        ? { kind: "accepted" }
        : { kind: "response", id: String(id), answer };
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
  const meta = requestMeta(m);
  return {
    kind: "request",
    id,
    method: m.method,
    revision,
    params: m.params,
    meta,
    answer: (target, options = {}) =>
      answerOn(
        request,
        { ...m, id },
        target,
        {
          revision,
          headers: request.headers,
          meta,
          keys,
          ...(options.session === undefined ? {} : { session: options.session })
        },
        // A stateless answer has no session header to send.
        revision.modern ? {} : (options.headers ?? {}),
        options.resultMeta
      )
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
