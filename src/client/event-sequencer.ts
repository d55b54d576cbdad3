/** @module Delivers a session's events exactly once and in seq order, filling gaps from `/events`. */

import { EVENTS_PAGE, type EventFrame } from "../protocol";
import { createTransport, type FetchLike } from "./request";
import { RoostSession } from "./session-client";

export interface SequencerOptions {
  baseUrl: string;
  sessionId: string;
  token: string;
  fetch?: FetchLike;
  /** The seq already seen, when starting from a resume rather than a snapshot. */
  after?: number;
  deliver: (event: EventFrame) => void;
  /** Asks the socket to replay everything after `after` (the `resume` frame). */
  replay: (after: number) => void;
}

/**
 * Seqs are strictly increasing per session, so "seen" is one number: an
 * event at or below it is a repeat (a replay overlapping what arrived
 * live) and is dropped. An event past the next expected seq means frames
 * went missing; they are read from `/events` before it is delivered. If
 * they cannot be read, the socket is asked to replay instead, and jumps
 * are dropped until the replay catches up (they will come again in it).
 */
export class EventSequencer {
  readonly #options: SequencerOptions;
  readonly #session: RoostSession;
  #lastSeq: number | undefined;
  #awaitingReplay = false;

  constructor(options: SequencerOptions) {
    this.#options = options;
    this.#lastSeq = options.after;
    // No retries here: a failed fill falls back to the socket's own replay.
    const send = createTransport({
      baseUrl: options.baseUrl,
      retries: 0,
      ...(options.fetch ? { fetch: options.fetch } : {})
    });
    this.#session = new RoostSession(send, options.sessionId, options.token);
  }

  get lastSeq(): number | undefined {
    return this.#lastSeq;
  }

  /** A snapshot: everything up to `seq` is reflected in it. */
  rebase(seq: number): void {
    this.#lastSeq = seq;
    this.#awaitingReplay = false;
  }

  async receive(event: EventFrame): Promise<void> {
    const last = this.#lastSeq;
    if (last === undefined) return this.#deliver(event);
    if (event.seq <= last) return;
    if (event.seq === last + 1) {
      this.#awaitingReplay = false;
      return this.#deliver(event);
    }
    if (this.#awaitingReplay) return;
    if (await this.#fill(last, event.seq)) this.#deliver(event);
  }

  /**
   * Delivers the retained events in (after, before); false if it could not
   * read them. Pages are asked for the gap's size and followed while they
   * say there is more: one cut by bytes is short without being the end.
   */
  async #fill(after: number, before: number): Promise<boolean> {
    const limit = Math.min(before - 1 - after, EVENTS_PAGE.max);
    try {
      for await (const event of this.#session.items.events(after, { limit })) {
        if (event.seq >= before) break;
        if (event.seq > (this.#lastSeq ?? 0)) this.#deliver(event);
        if (event.seq === before - 1) break;
      }
      return true;
    } catch {
      this.#awaitingReplay = true;
      this.#options.replay(this.#lastSeq ?? after);
      return false;
    }
  }

  #deliver(event: EventFrame): void {
    this.#lastSeq = event.seq;
    this.#options.deliver(event);
  }
}
