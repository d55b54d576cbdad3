/** @module `connectSession`: a session's live event stream that survives drops — resume, gap fill, no duplicates. */

import type { JsonObject, JsonValue } from "../json";
import {
  type ActionInput,
  CLOSE_CODES,
  EventFrameSchema,
  isTerminalCloseCode,
  PING_FRAME,
  ProtocolErrorFrameSchema,
  ReplyFrameSchema,
  ResumeExpiredFrameSchema,
  SnapshotFrameSchema,
  subprotocolsFor
} from "../protocol";
import { type ClientErrorCode, RoostClientError } from "./client-error";
import {
  backoffDelay,
  type Clock,
  systemClock,
  type TimerHandle
} from "./clock";
import { EventSequencer } from "./event-sequencer";
import { closeErrorCode, decodeFrame } from "./frame-decode";
import { Heartbeat } from "./heartbeat";
import { PendingRequests, type SocketRequest } from "./pending-requests";
import type { MutationOptions } from "./session-client";
import type {
  ConnectOptions,
  SocketStatus,
  StatusDetail
} from "./socket-options";
import {
  callRequest,
  forkRequest,
  type ResetPick,
  resetRequest,
  stepRequest
} from "./socket-requests";
import {
  defaultWebSocket,
  OPEN,
  socketUrl,
  type WebSocketConstructor,
  type WebSocketLike
} from "./websocket-like";

/**
 * Connects at once and keeps the stream going until `close()`.
 *
 * @example
 * import { WebSocket } from "ws"; // Node 20 only
 * const socket = connectSession({ baseUrl, sessionId, token, WebSocket,
 *   onEvent: (e) => console.log(e.seq, e.type) });
 * const { reward } = await socket.step({ tool_calls: [...] });
 * socket.close();
 */
export const connectSession = (options: ConnectOptions): SessionSocket =>
  new SessionSocket(options);

export class SessionSocket {
  readonly #options: ConnectOptions;
  readonly #Socket: WebSocketConstructor;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #pending = new PendingRequests();
  readonly #events: EventSequencer;
  #socket: WebSocketLike | undefined;
  #status: SocketStatus = "connecting";
  #failures = 0;
  #reconnectTimer: TimerHandle | undefined;
  readonly #heartbeat: Heartbeat;
  #acked = 0;
  /** The last `protocol.error` about no request: the reason a 4400 close that follows gives none of. */
  #refusal: RoostClientError | undefined;
  /** Frames are handled one at a time: a gap fill must finish before later frames. */
  #chain: Promise<void> = Promise.resolve();

  constructor(options: ConnectOptions) {
    this.#options = options;
    this.#Socket = options.WebSocket ?? defaultWebSocket();
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#events = new EventSequencer({
      baseUrl: options.baseUrl,
      sessionId: options.sessionId,
      token: options.token,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.after === undefined ? {} : { after: options.after }),
      deliver: (event) => {
        this.#call(() => options.onEvent(event));
        this.#ack(event.seq);
      },
      replay: (after) =>
        this.#socket?.send(JSON.stringify({ type: "resume", after }))
    });
    this.#heartbeat = new Heartbeat(
      this.#clock,
      options.heartbeatMs ?? 25_000,
      {
        ping: () => {
          if (this.#socket?.readyState === OPEN) this.#socket.send(PING_FRAME);
        },
        silent: () => this.#drop("heartbeat timeout")
      }
    );
    this.#open();
  }

  get status(): SocketStatus {
    return this.#status;
  }

  /** The seq of the newest event delivered (or the snapshot's); undefined before either. */
  get lastSeq(): number | undefined {
    return this.#events.lastSeq;
  }

  /**
   * Sends a request frame and resolves with its reply's value (rejects with
   * a `RoostClientError` for an error reply). Queued while disconnected.
   */
  send(request: SocketRequest): Promise<JsonValue> {
    if (this.#status === "closed")
      return Promise.reject(
        new RoostClientError("closed", "The socket was closed.")
      );
    const { text, reply } = this.#pending.add(request);
    if (this.#status === "open") this.#socket?.send(text);
    return reply;
  }

  /**
   * One step. `options` is `RoostSession.step`'s (`{ idempotencyKey }`);
   * a bare key string is the older form, still taken.
   */
  step(action: ActionInput, options: MutationOptions | string = {}) {
    return stepRequest(this.#sender, action, options);
  }

  /** `pick` takes the task from the dataset, or from a named split, instead of `task`. */
  reset(task?: JsonValue, state?: Record<string, JsonValue>, pick?: ResetPick) {
    return resetRequest(this.#sender, task, state, pick);
  }

  call(tool: string, args: JsonObject = {}) {
    return callRequest(this.#sender, tool, args);
  }

  /**
   * Copies the session `count` times (see `RoostSession.fork`), as it
   * stands or as it stood right after `step` of the current episode; the reply
   * lists each copy's id, token and socket URL. Resent after a reconnect
   * with the same idempotency key, so a retry never makes a second set.
   */
  fork(count = 1, step?: number) {
    return forkRequest(this.#sender, count, step);
  }

  readonly #sender = (request: SocketRequest) => this.send(request);

  /** Closes for good; unanswered requests reject with `closed`. */
  close(): void {
    if (this.#status === "closed") return;
    const socket = this.#socket;
    this.#socket = undefined;
    try {
      socket?.close(1000, "client closed");
    } catch {
      // already closing
    }
    this.#stop(new RoostClientError("closed", "The socket was closed."), {});
  }

  #open(): void {
    const url = socketUrl(
      this.#options.baseUrl,
      this.#options.sessionId,
      this.#events.lastSeq
    );
    const socket = new this.#Socket(url, subprotocolsFor(this.#options.token));
    this.#socket = socket;
    // Events of a socket this client has let go of are ignored.
    socket.addEventListener("open", () => {
      if (this.#socket === socket) this.#onOpen(socket);
    });
    socket.addEventListener("message", (event) => {
      if (this.#socket === socket) this.#onMessage(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (this.#socket === socket)
        this.#onClose(event.code ?? 1006, event.reason ?? "");
    });
    socket.addEventListener("error", () => {
      // A close event follows; it decides what happens next.
    });
  }

  #onOpen(socket: WebSocketLike): void {
    this.#refusal = undefined;
    this.#setStatus("open", {});
    for (const text of this.#pending.texts()) socket.send(text);
    this.#heartbeat.start();
  }

  #onMessage(data: unknown): void {
    // Backoff starts over only once a server has spoken: one that accepts
    // and at once drops the socket must not be hammered.
    this.#failures = 0;
    this.#heartbeat.heard();
    const frame = decodeFrame(data);
    if (frame === undefined) {
      this.#report(
        "invalid_response",
        "The server sent a frame that is not a JSON object."
      );
      return;
    }
    if (frame.type === "pong") return;
    this.#chain = this.#chain
      .then(() => this.#handle(frame))
      .catch((error: unknown) => this.#fail(error));
  }

  async #handle(frame: object): Promise<void> {
    if (this.#status === "closed") return;
    const type = (frame as { type: unknown }).type;
    switch (type) {
      case "session.snapshot": {
        const snapshot = SnapshotFrameSchema().parse(frame);
        this.#events.rebase(snapshot.last_seq);
        this.#call(() => this.#options.onSnapshot?.(snapshot));
        return;
      }
      case "resume.expired": {
        const expired = ResumeExpiredFrameSchema().parse(frame);
        this.#call(() => this.#options.onResumeExpired?.(expired));
        return;
      }
      case "reply":
        this.#pending.settle(ReplyFrameSchema().parse(frame));
        return;
      case "batch": {
        // Unpacked here, so every event goes through the sequencer alone.
        const events = (frame as { events?: unknown }).events;
        if (!Array.isArray(events)) {
          this.#report("invalid_response", "A batch frame without events.");
          return;
        }
        for (const event of events) await this.#event(event);
        return;
      }
      case "protocol.error": {
        const { error, id } = ProtocolErrorFrameSchema().parse(frame);
        const failure = new RoostClientError(
          error.code,
          error.message,
          0,
          error.details
        );
        if (id === undefined) this.#refusal = failure;
        if (id === undefined || !this.#pending.fail(id, failure))
          this.#fail(failure);
        return;
      }
    }
    await this.#event(frame);
  }

  async #event(frame: unknown): Promise<void> {
    const parsed = EventFrameSchema().safeParse(frame);
    if (!parsed.success) {
      const type = (frame as { type?: unknown } | null)?.type;
      this.#report(
        "invalid_response",
        `Unreadable frame of type ${String(type)}.`
      );
      return;
    }
    await this.#events.receive(parsed.data);
  }

  #onClose(code: number, reason: string): void {
    this.#socket = undefined;
    this.#heartbeat.stop();
    if (isTerminalCloseCode(code)) {
      // Frames are handled in turn: the protocol.error sent just before the
      // close is read first, and names what the close only hints at.
      void this.#chain.then(() => this.#terminal(code, reason));
      return;
    }
    this.#scheduleReconnect({ code, reason });
  }

  #terminal(code: number, reason: string): void {
    if (this.#status === "closed") return;
    const error =
      (code === CLOSE_CODES.invalid_request && this.#refusal) ||
      new RoostClientError(
        closeErrorCode(code),
        reason || `Closed with ${code}.`
      );
    this.#stop(error, { code, reason, error });
  }

  #scheduleReconnect(detail: StatusDetail): void {
    const max = this.#options.maxReconnects ?? Number.POSITIVE_INFINITY;
    if (this.#failures >= max) {
      this.#stop(
        new RoostClientError("disconnected", "Gave up reconnecting."),
        detail
      );
      return;
    }
    const delayMs = backoffDelay(
      this.#failures,
      {
        baseMs: this.#options.backoff?.baseMs ?? 250,
        maxMs: this.#options.backoff?.maxMs ?? 30_000
      },
      this.#random
    );
    this.#failures++;
    this.#setStatus("reconnecting", {
      ...detail,
      attempt: this.#failures,
      delayMs
    });
    this.#reconnectTimer = this.#clock.setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#status === "reconnecting") this.#open();
    }, delayMs);
  }

  /** Lets go of a connection that is dead without a close, and reconnects. */
  #drop(reason: string): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#heartbeat.stop();
    try {
      socket?.close(4000, reason);
    } catch {
      // already closing
    }
    this.#scheduleReconnect({ reason });
  }

  #ack(seq: number): void {
    const every = this.#options.ackEvery ?? 0;
    if (every <= 0 || seq - this.#acked < every) return;
    if (this.#socket?.readyState !== OPEN) return;
    this.#acked = seq;
    this.#socket.send(JSON.stringify({ type: "ack", seq }));
  }

  #stop(error: RoostClientError, detail: StatusDetail): void {
    this.#heartbeat.stop();
    if (this.#reconnectTimer !== undefined)
      this.#clock.clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#pending.failAll(error);
    this.#setStatus("closed", detail);
  }

  #setStatus(status: SocketStatus, detail: StatusDetail): void {
    this.#status = status;
    this.#call(() => this.#options.onStatus?.(status, detail));
  }

  #report(code: ClientErrorCode, message: string): void {
    this.#fail(new RoostClientError(code, message));
  }

  /** Runs a user handler; its exceptions go to `onError`, never into the stream. */
  #call(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    try {
      this.#options.onError?.(
        error instanceof Error ? error : new Error(String(error))
      );
    } catch {
      // A throwing error handler has nowhere left to report to.
    }
  }
}
