/** @module The external store behind `useSession`: one socket of the client, its events folded into a `SessionView`. */

import { createClient } from "../client/http";
import type { MutationOptions, RoostSession } from "../client/session-client";
import { connectSession, type SessionSocket } from "../client/socket";
import type { ConnectOptions, SnapshotFrame } from "../client/socket-options";
import type { JsonObject, JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { ActionInput, EventFrame } from "../protocol";
import {
  applyEvent,
  type Checkpoint,
  checkpointOf,
  rollback
} from "./apply-event";
import { EMPTY_VIEW, type SessionView } from "./session-view";
import { type RestRead, SnapshotRest } from "./snapshot-rest";

/** `connectSession`'s options without the handlers the store sets itself. */
export type StoreOptions = Omit<
  ConnectOptions,
  "onEvent" | "onSnapshot" | "onResumeExpired" | "after"
> & {
  /** Events kept in `events` (default 10 000, the server's default retention). */
  maxEvents?: number;
  /**
   * Whether to read the transcript over HTTP after each snapshot (default
   * true). A view that shows no transcript passes false: `messages` then
   * holds only the messages that arrive while connected, and a session
   * with hundreds of megabytes of transcript costs nothing to open.
   */
  transcript?: boolean;
};

interface HistoryRead {
  episode: number;
  live: Map<number, Message>;
}

/** Checkpoints kept for rollbacks; a step's events fit many times over. */
const MAX_CHECKPOINTS = 20_000;

/**
 * Holds the view and tells subscribers when it changed. The socket is the
 * client's own `SessionSocket` (reconnect, resume by seq, gap fill,
 * idempotent resends); HTTP reads go through `RoostSession`, which
 * retries them. Nothing here knows React.
 */
export class SessionStore {
  readonly #options: StoreOptions;
  readonly #listeners = new Set<() => void>();
  readonly #http: RoostSession;
  #socket: SessionSocket | undefined;
  #view: SessionView = EMPTY_VIEW;
  /** Slices before each event of mutations that may still abort. */
  #checkpoints: Checkpoint[] = [];
  /** The transcript is being read after a snapshot: live messages wait at their index. */
  #history: HistoryRead | undefined;
  /** State keys written since a reset, which a later read of the whole state must not undo. */
  #sinceReset: Set<string> | undefined;
  /** State and keys a cut snapshot left to read over HTTP. */
  #rest: SnapshotRest | undefined;

  constructor(options: StoreOptions) {
    this.#options = options;
    this.#http = createClient({
      baseUrl: options.baseUrl,
      ...(options.fetch ? { fetch: options.fetch } : {})
    }).session(options.sessionId, options.token);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getView = (): SessionView => this.#view;

  get session(): RoostSession {
    return this.#http;
  }

  /** Opens the socket; the snapshot and events follow. */
  connect(): void {
    if (this.#socket) return;
    const options = this.#options;
    this.#socket = connectSession({
      ...options,
      onEvent: (event) => this.#onEvent(event),
      onSnapshot: (snapshot) => this.#onSnapshot(snapshot),
      onStatus: (connection, detail) => {
        this.#set({ ...this.#view, connection });
        options.onStatus?.(connection, detail);
      },
      onError: (error) => {
        this.#set({ ...this.#view, error });
        options.onError?.(error);
      }
    });
  }

  /** Closes the socket for good; the view stays as it was, `closed`. */
  close(): void {
    this.#socket?.close();
    this.#socket = undefined;
  }

  step(action: ActionInput, options?: MutationOptions | string) {
    return this.#live().step(action, options);
  }

  async reset(
    task?: JsonValue,
    state?: Record<string, JsonValue>,
    pick?: { taskIndex: number; split?: string }
  ) {
    const response = await this.#live().reset(task, state, pick);
    // Committed now: the new episode's defaults can be read.
    await this.#readState();
    return response;
  }

  call(tool: string, args: JsonObject = {}) {
    return this.#live().call(tool, args);
  }

  fork(count = 1) {
    return this.#live().fork(count);
  }

  #live(): SessionSocket {
    if (!this.#socket) throw new Error("The session is not connected.");
    return this.#socket;
  }

  #onSnapshot(snapshot: SnapshotFrame): void {
    this.#checkpoints = [];
    this.#sinceReset = undefined;
    const history =
      this.#options.transcript === false
        ? undefined
        : { episode: snapshot.status.episode, live: new Map() };
    this.#history = history;
    this.#rest = SnapshotRest.of(snapshot);
    this.#set({
      ...this.#view,
      status: snapshot.status,
      state: snapshot.state,
      keys: snapshot.keys,
      lastSeq: snapshot.last_seq
    });
    if (history) void this.#readHistory(history);
    if (this.#rest) void this.#readRest(this.#rest);
  }

  /** What a cut snapshot left out, read from its cursors to the end and merged in. */
  async #readRest(rest: SnapshotRest): Promise<void> {
    const read: RestRead = {};
    try {
      if (rest.stateCursor)
        read.state = await this.#http.state({ cursor: rest.stateCursor });
      if (rest.keysCursor)
        read.keys = (await this.#http.keys({ cursor: rest.keysCursor })).keys;
    } catch (error) {
      if (this.#rest === rest) this.#rest = undefined;
      this.#set({ ...this.#view, error: error as Error });
      return;
    }
    // A newer snapshot or a reset started over; this read is stale.
    if (this.#rest !== rest) return;
    this.#rest = undefined;
    // Checkpoints too: a rollback must not take the rest away again.
    for (const checkpoint of this.#checkpoints)
      checkpoint.view = {
        ...checkpoint.view,
        ...rest.merge(checkpoint.view, read, true)
      };
    this.#set({ ...this.#view, ...rest.merge(this.#view, read) });
  }

  /** The transcript up to now (the snapshot carries only counts), merged with what arrived meanwhile. */
  async #readHistory(history: HistoryRead): Promise<void> {
    const read: Message[] = [];
    try {
      for await (const message of this.#http.items.messages())
        read.push(message);
    } catch (error) {
      if (this.#history === history) this.#history = undefined;
      this.#set({ ...this.#view, error: error as Error });
      return;
    }
    // A newer snapshot or a reset started over; this read is stale.
    if (this.#history !== history) return;
    this.#history = undefined;
    const live = [...history.live.entries()]
      .filter(([index]) => index >= read.length)
      .sort(([a], [b]) => a - b)
      .map(([, message]) => message);
    // Checkpoints too: a step aborted after this read must roll back to
    // the read transcript plus what had arrived live before it, not to a
    // view from before the read.
    const indexOf = new Map([...history.live].map(([i, m]) => [m, i]));
    const after = (m: Message) => indexOf.get(m) ?? -1;
    for (const checkpoint of this.#checkpoints)
      checkpoint.view = {
        ...checkpoint.view,
        messages: [
          ...read,
          ...checkpoint.view.messages
            .filter((m) => after(m) >= read.length)
            .sort((a, b) => after(a) - after(b))
        ]
      };
    this.#set({ ...this.#view, messages: [...read, ...live] });
  }

  async #readState(): Promise<void> {
    if (this.#sinceReset === undefined) return;
    try {
      const state = await this.#http.state();
      const written = this.#sinceReset;
      if (written === undefined) return;
      this.#sinceReset = undefined;
      const current = this.#view.state ?? {};
      const merged = { ...state };
      for (const key of written)
        if (key in current) merged[key] = current[key] as JsonValue;
      this.#set({ ...this.#view, state: merged });
    } catch (error) {
      this.#set({ ...this.#view, error: error as Error });
    }
  }

  #onEvent(event: EventFrame): void {
    const view = this.#view;
    if (event.type === "step.aborted") {
      this.#rest?.forget(event.first_seq);
      const from = this.#checkpoints.findIndex(
        (c) => c.episode === event.episode && c.seq >= event.first_seq
      );
      const checkpoint = from < 0 ? undefined : this.#checkpoints[from];
      if (from >= 0) this.#checkpoints.length = from;
      if (this.#history)
        for (const [index, message] of this.#history.live)
          if (!checkpoint?.view.messages.includes(message))
            this.#history.live.delete(index);
      this.#set(rollback(view, event, checkpoint));
      return;
    }
    this.#checkpoints.push(checkpointOf(view, event));
    if (this.#checkpoints.length > MAX_CHECKPOINTS)
      this.#checkpoints.splice(0, this.#checkpoints.length - MAX_CHECKPOINTS);
    const max = this.#options.maxEvents ?? 10_000;
    this.#rest?.note(event);
    if (event.type === "reset") {
      this.#history = undefined;
      this.#rest = undefined;
      this.#sinceReset = new Set();
    }
    if (event.type === "state.changed") this.#sinceReset?.add(event.key);
    if (event.type === "message" && this.#history) {
      this.#history.live.set(event.index, event.message);
    }
    this.#set(applyEvent(view, event, max));
    // A step commits with its `step` event: nothing before it can abort
    // any more, and a reset before it has committed too.
    if (event.type === "step") {
      this.#checkpoints = [];
      void this.#readState();
    }
  }

  #set(view: SessionView): void {
    this.#view = view;
    for (const listener of this.#listeners) listener();
  }
}
