/** @module In-memory overlays over the state and transcript backends: a mutation's writes, applied by one `flush()`. */

import { cloneJson, type JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { StateBackend, TranscriptBackend } from "./types";

/**
 * Pending values over a StateBackend. There is no delete, so a pending key
 * is simply the newest value; new keys list after the base's, in the order
 * they were first set, as the base will list them after the flush.
 *
 * @example
 * const state = new OverlayStateBackend(sqliteState);
 * state.set("docs", ["a"]);
 * ctx.storage.transactionSync(() => state.flush());
 */
/** Typed taps on a mutation's writes of one kind: before (a throw refuses it) and after. */
export interface WriteWatch<A extends unknown[]> {
  before?(...args: A): void;
  after?(...args: A): void;
}

export class OverlayStateBackend implements StateBackend {
  readonly #base: StateBackend;
  readonly #watch: WriteWatch<[key: string, value: JsonValue]>;
  #pending = new Map<string, JsonValue>();

  constructor(
    base: StateBackend,
    watch: WriteWatch<[key: string, value: JsonValue]> = {}
  ) {
    this.#base = base;
    this.#watch = watch;
  }

  /** True once a value waits to be flushed. */
  get touched(): boolean {
    return this.#pending.size > 0;
  }

  get(key: string): JsonValue | undefined {
    const value = this.#pending.get(key);
    return value === undefined ? this.#base.get(key) : cloneJson(value);
  }

  set(key: string, value: JsonValue): void {
    this.#watch.before?.(key, value);
    this.#pending.set(key, cloneJson(value));
    this.#watch.after?.(key, value);
  }

  has(key: string): boolean {
    return this.#pending.has(key) || this.#base.has(key);
  }

  keys(): string[] {
    const listed = this.#base.keys();
    const known = new Set(listed);
    for (const key of this.#pending.keys()) {
      if (!known.has(key)) listed.push(key);
    }
    return listed;
  }

  flush(): void {
    for (const [key, value] of this.#pending) this.#base.set(key, value);
    this.discard();
  }

  /** Drops every pending value; the base never saw them. */
  discard(): void {
    this.#pending = new Map();
  }
}

/**
 * Pending messages after a TranscriptBackend's: indexes continue from the
 * base's count, and `list` reads across both, so a step sees its own turns.
 *
 * @example
 * const transcript = new OverlayTranscriptBackend(sqliteTranscript);
 * transcript.append([{ role: "user", content: "hi" }]);
 * ctx.storage.transactionSync(() => transcript.flush());
 */
export class OverlayTranscriptBackend implements TranscriptBackend {
  readonly #base: TranscriptBackend;
  /** `after` gets the index of the first appended message. */
  readonly #watch: WriteWatch<[messages: Message[], first: number]>;
  #pending: Message[] = [];

  constructor(
    base: TranscriptBackend,
    watch: WriteWatch<[messages: Message[], first: number]> = {}
  ) {
    this.#base = base;
    this.#watch = watch;
  }

  /** True once a message waits to be flushed. */
  get touched(): boolean {
    return this.#pending.length > 0;
  }

  append(messages: Message[]): void {
    const first = this.count();
    this.#watch.before?.(messages, first);
    for (const message of messages) this.#pending.push(cloneJson(message));
    this.#watch.after?.(messages, first);
  }

  count(): number {
    return this.#base.count() + this.#pending.length;
  }

  list(offset: number, limit: number): Message[] {
    const start = Math.max(0, offset);
    const end = start + Math.max(0, limit);
    const based = this.#base.count();
    const head =
      start < based ? this.#base.list(start, Math.min(end, based) - start) : [];
    const tail = this.#pending
      .slice(Math.max(0, start - based), Math.max(0, end - based))
      .map((m) => cloneJson(m));
    return head.concat(tail);
  }

  /** One append of every pending message, in order. */
  flush(): void {
    if (this.#pending.length > 0) this.#base.append(this.#pending);
    this.discard();
  }

  /** Drops every pending message; the base never saw them. */
  discard(): void {
    this.#pending = [];
  }
}
