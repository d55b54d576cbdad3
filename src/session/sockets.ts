/** @module The session's WebSockets: snapshot or replay on connect, live events, client requests. */

import { RoostError, toErrorBody } from "../errors";
import {
  CLOSE_CODES,
  type ClientFrame,
  parseClientFrame,
  subprotocolHeaders
} from "../protocol";
import type { StoredEvent } from "../storage/event-log";
import { dispatch } from "./operations";
import type { ResolvedOptions } from "./options";
import type { SessionRuntime } from "./runtime";

/** What each socket remembers across hibernation. */
interface Attachment {
  /** The newest seq this socket was sent; live events at or below it are skipped. */
  lastSeq: number;
  /** The newest seq the client acknowledged, once it sends `ack` frames. */
  acked?: number;
  /** The origin the client connected to: a fork's reply gives the copies' ws_url on it. */
  origin?: string;
}

/** Forks this session for a socket's `fork` request (bound by the session class). */
export type SocketFork = (
  count: number,
  origin: string,
  key: string | undefined
) => Promise<unknown>;

/** Replays are read in pages, so a long gap never loads the whole log at once. */
const REPLAY_PAGE = 500;

const attachment = (ws: WebSocket): Attachment =>
  (ws.deserializeAttachment() as Attachment | null) ?? { lastSeq: 0 };

export class SocketHub {
  readonly #ctx: DurableObjectState;
  readonly #runtime: SessionRuntime;
  readonly #options: ResolvedOptions;
  readonly #fork: SocketFork | undefined;

  constructor(
    ctx: DurableObjectState,
    runtime: SessionRuntime,
    options: ResolvedOptions,
    fork?: SocketFork
  ) {
    this.#ctx = ctx;
    this.#runtime = runtime;
    this.#options = options;
    this.#fork = fork;
    runtime.onEvent = (event) => this.broadcast(event);
    runtime.onGone = () =>
      this.closeAll(CLOSE_CODES.session_gone, "The session was deleted.");
  }

  /** Accepts an upgrade the worker already authenticated. */
  accept(request: Request): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.#ctx.acceptWebSocket(server);
    const origin = new URL(request.url).origin;
    server.serializeAttachment({ lastSeq: 0, origin } satisfies Attachment);
    const headers = subprotocolHeaders(request);
    if (!this.#runtime.exists()) {
      server.close(CLOSE_CODES.session_gone, "This session does not exist.");
      return new Response(null, { status: 101, webSocket: client, headers });
    }
    const after = new URL(request.url).searchParams.get("after");
    const n = after === null ? Number.NaN : Number(after);
    if (after !== null && Number.isSafeInteger(n) && n >= 0)
      this.#resume(server, n);
    else this.#snapshot(server);
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  /** Sends an event to every socket that has not seen it, in seq order. */
  broadcast(event: StoredEvent): void {
    const text = JSON.stringify(event);
    for (const ws of this.#ctx.getWebSockets())
      this.#sendEvent(ws, event.seq, text);
  }

  /** Closes every socket: the session is gone. */
  closeAll(code: number, reason: string): void {
    for (const ws of this.#ctx.getWebSockets()) {
      try {
        ws.close(code, reason);
      } catch {
        // already closing
      }
    }
  }

  async message(ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    const parsed = parseClientFrame(data, this.#options.limits);
    if (!parsed.ok) {
      this.#send(ws, {
        type: "protocol.error",
        error: parsed.error,
        ...(parsed.id ? { id: parsed.id } : {})
      });
      return;
    }
    const frame = parsed.frame;
    if (frame.type === "ping") return this.#send(ws, { type: "pong" });
    if (frame.type === "resume") return this.#resume(ws, frame.after);
    if (frame.type === "ack") {
      ws.serializeAttachment({
        ...attachment(ws),
        acked: frame.seq
      } satisfies Attachment);
      return;
    }
    let reply: Record<string, unknown>;
    try {
      reply = {
        type: "reply",
        id: frame.id,
        ok: true,
        value: await this.#request(frame, attachment(ws).origin)
      };
    } catch (error) {
      if (!(error instanceof RoostError))
        console.error("session socket request failed", error);
      reply = {
        type: "reply",
        id: frame.id,
        ok: false,
        error: toErrorBody(error)
      };
    }
    this.#send(ws, reply);
  }

  /** A client's request: the same operation, and key binding, as over HTTP. */
  async #request(
    frame: Exclude<ClientFrame, { type: "ping" | "resume" | "ack" }>,
    origin: string | undefined
  ): Promise<unknown> {
    const rt = this.#runtime;
    const key = "idempotency_key" in frame ? frame.idempotency_key : undefined;
    switch (frame.type) {
      case "step":
        return dispatch(rt, "step", { action: frame.action }, key);
      case "reset":
        return dispatch(
          rt,
          "reset",
          frame.task === undefined ? {} : { task: frame.task },
          key
        );
      case "call":
        return dispatch(
          rt,
          "call",
          { tool: frame.tool, arguments: frame.arguments },
          key
        );
      case "cancel":
        return dispatch(rt, "cancelRun", { run_id: frame.run_id });
      case "fork":
        if (this.#fork === undefined || origin === undefined) {
          throw new RoostError(
            "invalid_request",
            "This session cannot be forked over its socket here; use POST /v1/sessions/:id/fork."
          );
        }
        rt.core.requireRow();
        return this.#fork(frame.count, origin, key);
    }
  }

  #snapshot(ws: WebSocket): void {
    const snapshot = this.#runtime.snapshot();
    this.#send(ws, { type: "session.snapshot", ...snapshot });
    ws.serializeAttachment({
      ...attachment(ws),
      lastSeq: snapshot.last_seq
    } satisfies Attachment);
  }

  /** Every retained event after `after`, then live; a fresh snapshot if they are gone. */
  #resume(ws: WebSocket, after: number): void {
    const log = this.#runtime.events;
    const oldest = log.oldestSeq;
    if (oldest > 0 && after < oldest - 1) {
      this.#send(ws, { type: "resume.expired", after, oldest_seq: oldest });
      this.#snapshot(ws);
      return;
    }
    ws.serializeAttachment({
      ...attachment(ws),
      lastSeq: after
    } satisfies Attachment);
    for (let cursor = after; ; ) {
      const page = log.after(cursor, REPLAY_PAGE);
      for (const event of page)
        this.#sendEvent(ws, event.seq, JSON.stringify(event));
      if (page.length < REPLAY_PAGE) break;
      cursor = page.at(-1)!.seq;
    }
  }

  #sendEvent(ws: WebSocket, seq: number, text: string): void {
    const state = attachment(ws);
    if (seq <= state.lastSeq) return;
    if (
      state.acked !== undefined &&
      seq - state.acked > this.#options.socketBacklog
    ) {
      // The platform does not expose a socket's buffered bytes; the client's
      // acks do. A reader this far behind can reconnect with ?after=.
      ws.close(
        CLOSE_CODES.slow_reader,
        "Too far behind; reconnect with ?after=<last seq>."
      );
      return;
    }
    try {
      ws.send(text);
      ws.serializeAttachment({ ...state, lastSeq: seq } satisfies Attachment);
    } catch {
      // A dead socket must not stop the others; its close event cleans up.
    }
  }

  #send(ws: WebSocket, frame: Record<string, unknown>): void {
    try {
      ws.send(JSON.stringify(frame));
    } catch {
      // closed meanwhile
    }
  }
}
