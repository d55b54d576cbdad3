/** @module The session's event log: every streamed change, with its seq, append-only. */

import { utf8Length } from "../json";

/** A stored event as frames carry it: `{ seq, type, episode, at, ...data }`. */
export interface StoredEvent {
  seq: number;
  type: string;
  episode: number;
  at: string;
  [field: string]: unknown;
}

/**
 * Events are written as they happen — during a mutation, before its commit —
 * so results stream at once. They are never rewritten; a mutation that
 * never committed is followed by `step.aborted` instead.
 */
export class EventLog {
  #sql: SqlStorage;
  #last: number | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The newest seq (0 when none); one indexed read, then cached. */
  get lastSeq(): number {
    this.#last ??= Number(
      this.#sql
        .exec<{ s: number | null }>("SELECT max(seq) AS s FROM events")
        .one().s ?? 0
    );
    return this.#last;
  }

  get oldestSeq(): number {
    return Number(
      this.#sql
        .exec<{ s: number | null }>("SELECT min(seq) AS s FROM events")
        .one().s ?? 0
    );
  }

  append(
    episode: number,
    type: string,
    data: Record<string, unknown>
  ): StoredEvent {
    const seq = this.lastSeq + 1;
    const event: StoredEvent = {
      seq,
      type,
      episode,
      at: new Date().toISOString(),
      ...data
    };
    const text = JSON.stringify(event);
    this.#sql.exec(
      "INSERT INTO events (seq, episode, type, data, bytes) VALUES (?, ?, ?, ?, ?)",
      seq,
      episode,
      type,
      text,
      utf8Length(text)
    );
    this.#last = seq;
    return event;
  }

  after(seq: number, limit: number): StoredEvent[] {
    return this.#sql
      .exec<{ data: string }>(
        "SELECT data FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
        seq,
        limit
      )
      .toArray()
      .map((r) => JSON.parse(r.data) as StoredEvent);
  }

  /**
   * Drops the oldest events beyond `maxEvents`, at most `batch` per call so
   * a trim never holds the object for long.
   */
  trim(maxEvents: number, batch = 1000): number {
    const cutoff = this.lastSeq - maxEvents;
    if (cutoff <= 0) return 0;
    return this.#sql.exec(
      "DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE seq <= ? ORDER BY seq LIMIT ?)",
      cutoff,
      batch
    ).rowsWritten;
  }

  /** Forget the cached seq (after storage was rolled back or deleted). */
  reset(): void {
    this.#last = undefined;
  }
}
