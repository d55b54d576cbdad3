/**
 * @module The session's WebSockets: snapshot or replay on connect, live
 * events, client requests. Live events are held until their mutation
 * settles or the running turn yields (a timer of 0), whichever is first,
 * and then go out together, one message per socket (event-batches.ts): a
 * step's eight events cost one send, while a tool that awaits I/O still
 * lets what came before it out at once.
 */

import { RoostError, toErrorBody } from "../errors";
import {
  CLOSE_CODES,
  parseClientFrame,
  ReadBudget,
  subprotocolHeaders
} from "../protocol";
import { visibleTo } from "../protocol/agents";
import type { Grant, Scope } from "../protocol/scopes";
import type { EventText } from "../storage/event-log";
import { packEvents } from "./event-batches";
import { checkResumePoint } from "./operations/lifecycle";
import type { ResolvedOptions } from "./options";
import type { SessionRuntime } from "./runtime";
import { runFrame, type SocketFork } from "./socket-frames";
import {
  armExpiry,
  closeIfStale,
  closeSocket,
  isRevokedBy
} from "./socket-grants";
import { socketSnapshot } from "./socket-snapshot";

/** What each socket remembers across hibernation. */
interface Attachment {
  /**
   * The newest seq a snapshot or replay covered for this socket; live
   * events at or below it are skipped. Live sends leave it behind: each
   * live event is offered to a socket once, so only a replay can overlap.
   */
  lastSeq: number;
  /** Asked for one event per message (`?batch=0`). */
  single?: true;
  /** The newest seq the client acknowledged, once it sends `ack` frames. */
  acked?: number;
  /** The origin the client connected to: a fork's reply gives the copies' ws_url on it. */
  origin?: string;
  /** What the credential it opened with grants: every frame runs with it. */
  grant?: Grant;
}

export type { SocketFork } from "./socket-frames";

/**
 * The tag of the session's own sockets: a layer's sockets (OpenEnv's) live
 * in the same object and must never be sent its events.
 */
export const SESSION_SOCKET = "session";

/** Replays are read in pages, so a long gap never loads the whole log at once. */
const REPLAY_PAGE = 500;

/** A seq in `?after=`: digits only, as `GET …/events?after=` takes it. */
const SEQ = /^\d{1,15}$/;

type Parsed = Parameters<typeof visibleTo>[0];

/** Each event parsed once, however many agent sockets a flush sends it to. */
const parser = () => {
  const parsed = new Map<EventText, Parsed>();
  return (e: EventText): Parsed => {
    let event = parsed.get(e);
    if (event === undefined) {
      event = JSON.parse(e.text) as Parsed;
      parsed.set(e, event);
    }
    return event;
  };
};

/** What of `events` a socket of `agent`'s credential is sent (protocol/agents.ts). */
const viewOf = (
  events: readonly EventText[],
  agent: string | undefined,
  parse: (e: EventText) => Parsed = parser()
): readonly EventText[] =>
  agent === undefined
    ? events
    : events.filter((e) => visibleTo(parse(e), agent));

/** `?batch=0` (or `false`) asks for one event per message. */
const SINGLE = new Set(["0", "false"]);

const attachment = (ws: WebSocket): Attachment =>
  (ws.deserializeAttachment() as Attachment | null) ?? { lastSeq: 0 };

export class SocketHub {
  readonly #ctx: DurableObjectState;
  readonly #runtime: SessionRuntime;
  readonly #options: ResolvedOptions;
  readonly #fork: SocketFork | undefined;
  /** Events written but not yet sent, oldest first. */
  #pending: EventText[] = [];
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Whether a socket was open at the first event since the last flush.
   * Sockets join only through `accept`, which flushes first, so until the
   * next flush a session without sockets queues nothing and sets no timer;
   * and until the next `accept` it need not ask the runtime again, so a
   * session no socket watches asks once, not at every step.
   */
  #listening: boolean | undefined;

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
    // A mutation's events are all ready once it settles: send them in the
    // same turn rather than a timer later.
    runtime.shared.queue.onSettled = () => this.flush();
    // A turn later, so a socket that asked for the delete itself (an `op`
    // frame) gets its reply before the close.
    runtime.onRevoked = (scope, before) => this.closeRevoked(scope, before);
    runtime.onGone = () =>
      setTimeout(() =>
        this.closeAll(CLOSE_CODES.session_gone, "The session was deleted.")
      );
  }

  /** Accepts an upgrade the worker already authenticated, for a credential that holds `grant`. */
  accept(request: Request, grant: Grant): Response {
    // What is pending goes to the sockets already open; the new one's
    // snapshot or replay covers it.
    this.flush();
    this.#listening = undefined;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.#ctx.acceptWebSocket(server, [SESSION_SOCKET]);
    const url = new URL(request.url);
    const single = SINGLE.has(url.searchParams.get("batch") ?? "");
    server.serializeAttachment({
      lastSeq: 0,
      origin: url.origin,
      grant,
      ...(single ? { single } : {})
    } satisfies Attachment);
    const headers = subprotocolHeaders(request);
    if (!this.#runtime.exists()) {
      server.close(CLOSE_CODES.session_gone, "This session does not exist.");
      return new Response(null, { status: 101, webSocket: client, headers });
    }
    if (this.#closeIfStale(server, grant))
      return new Response(null, { status: 101, webSocket: client, headers });
    armExpiry(this.#runtime.shared, server, grant);
    const after = url.searchParams.get("after");
    if (after === null) this.#snapshot(server);
    else if (!SEQ.test(after)) {
      this.#refuseResume(
        server,
        new RoostError(
          "invalid_request",
          `after must be a seq, a whole number from 0; got ${JSON.stringify(after.slice(0, 32))}.`,
          { field: "after" }
        )
      );
    } else this.#resume(server, Number(after), true);
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  /** Queues an event (as the log wrote it) for every socket; it goes out when the turn yields. */
  broadcast(event: EventText): void {
    this.#listening ??= this.#ctx.getWebSockets(SESSION_SOCKET).length > 0;
    if (!this.#listening) return;
    this.#pending.push(event);
    this.#flushTimer ??= setTimeout(() => this.flush(), 0);
  }

  /**
   * Sends the pending events to every socket that has not seen them, in
   * seq order. Runs before anything else is sent to a socket, so a reply
   * never overtakes the events of the request it answers.
   */
  flush(): void {
    if (this.#listening) this.#listening = undefined;
    if (this.#flushTimer !== undefined) {
      clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
    }
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    // Packed once for every socket that takes them all, as nearly all do.
    let packed: string[] | undefined;
    const parse = parser();
    for (const ws of this.#ctx.getWebSockets(SESSION_SOCKET)) {
      const state = attachment(ws);
      if (state.grant !== undefined && this.#closeIfStale(ws, state.grant))
        continue;
      const fresh = viewOf(
        state.lastSeq < pending[0]!.seq
          ? pending
          : pending.filter((e) => e.seq > state.lastSeq),
        state.grant?.agent,
        parse
      );
      if (fresh.length === 0 || this.#tooFarBehind(ws, state, fresh)) continue;
      if (state.single) {
        this.#sendAll(
          ws,
          fresh.map((e) => e.text)
        );
      } else if (fresh === pending) {
        packed ??= packEvents(pending);
        this.#sendAll(ws, packed);
      } else {
        this.#sendAll(ws, packEvents(fresh));
      }
    }
  }

  /** Closes the sockets opened with a token of `scope` signed before `before`. */
  closeRevoked(scope: Scope, before: number): void {
    this.flush();
    for (const ws of this.#ctx.getWebSockets(SESSION_SOCKET))
      if (isRevokedBy(attachment(ws).grant, scope, before))
        closeSocket(ws, CLOSE_CODES.unauthorized, "This token was revoked.");
  }

  #closeIfStale(ws: WebSocket, grant: Grant): boolean {
    return closeIfStale(this.#runtime.shared, ws, grant);
  }

  /** Closes every socket: the session is gone. */
  closeAll(code: number, reason: string): void {
    this.flush();
    for (const ws of this.#ctx.getWebSockets(SESSION_SOCKET))
      closeSocket(ws, code, reason);
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
    const grant = attachment(ws).grant;
    // Opened before sockets carried grants: such a socket held the one
    // token there was, which is `control`.
    const held = grant ?? { scope: "control", issuedAt: 0 };
    if (this.#closeIfStale(ws, held)) return;
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
        value: await runFrame(
          this.#runtime,
          frame,
          held,
          attachment(ws).origin,
          this.#fork
        )
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

  #snapshot(ws: WebSocket): void {
    this.flush();
    const snapshot = socketSnapshot(
      this.#runtime,
      attachment(ws).grant?.agent === undefined
    );
    this.#send(ws, { type: "session.snapshot", ...snapshot });
    ws.serializeAttachment({
      ...attachment(ws),
      lastSeq: snapshot.last_seq
    } satisfies Attachment);
  }

  /**
   * Every retained event after `after`, then live; a fresh snapshot if they
   * are gone. A resume point past the last seq is refused by the rule HTTP
   * follows (`checkResumePoint`): in band for a `resume` frame, and with a
   * 4400 close for `?after=` on connect, which has nothing else to show.
   */
  #resume(ws: WebSocket, after: number, connecting = false): void {
    this.flush();
    const log = this.#runtime.events;
    try {
      checkResumePoint(log, after);
    } catch (error) {
      if (error instanceof RoostError && error.code === "gone") {
        this.#send(ws, {
          type: "resume.expired",
          after,
          oldest_seq: log.oldestSeq
        });
        this.#snapshot(ws);
        return;
      }
      if (connecting) this.#refuseResume(ws, error);
      else
        this.#send(ws, { type: "protocol.error", error: toErrorBody(error) });
      return;
    }
    const state = attachment(ws);
    let last = after;
    // A page of at most the read budget at a time: the log's retained
    // bytes are never all in memory at once.
    for (;;) {
      const page = log.page(last, REPLAY_PAGE, new ReadBudget());
      if (page.length === 0 || this.#tooFarBehind(ws, state, page)) break;
      const view = viewOf(page, state.grant?.agent);
      this.#sendAll(
        ws,
        state.single ? view.map((e) => e.text) : packEvents(view)
      );
      last = page.at(-1)!.seq;
    }
    ws.serializeAttachment({ ...state, lastSeq: last } satisfies Attachment);
  }

  /** A resume point the client got wrong: say so, then close (a reconnect with it cannot help). */
  #refuseResume(ws: WebSocket, error: unknown): void {
    this.#send(ws, { type: "protocol.error", error: toErrorBody(error) });
    ws.close(CLOSE_CODES.invalid_request, "Invalid resume point.");
  }

  /**
   * The platform does not expose a socket's buffered bytes; the client's
   * acks do. A reader this far behind is closed, and can reconnect with
   * ?after=.
   */
  #tooFarBehind(
    ws: WebSocket,
    state: Attachment,
    events: readonly EventText[]
  ): boolean {
    if (
      state.acked === undefined ||
      events.at(-1)!.seq - state.acked <= this.#options.socketBacklog
    )
      return false;
    ws.close(
      CLOSE_CODES.slow_reader,
      "Too far behind; reconnect with ?after=<last seq>."
    );
    return true;
  }

  #sendAll(ws: WebSocket, messages: readonly string[]): void {
    try {
      for (const message of messages) ws.send(message);
    } catch {
      // A dead socket must not stop the others; its close event cleans up.
    }
  }

  #send(ws: WebSocket, frame: Record<string, unknown>): void {
    this.flush();
    try {
      ws.send(JSON.stringify(frame));
    } catch {
      // closed meanwhile
    }
  }
}
