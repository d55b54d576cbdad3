/** @module The session's event log: every streamed change, with its seq, append-only. */

import { utf8Length } from "../json";
import type { ReadBudget } from "../protocol/read-budget";

/** A stored event as frames carry it: `{ seq, type, episode, at, ...data }`. */
export interface StoredEvent {
  seq: number;
  type: string;
  episode: number;
  at: string;
  [field: string]: unknown;
}

/** An event as written: its seq and its JSON text, serialised once for the log and every socket. */
export interface EventText {
  seq: number;
  text: string;
}

/**
 * Events are written as they happen — during a mutation, before its commit —
 * so results stream at once. They are never rewritten; a mutation that
 * never committed is followed by `step.aborted` instead.
 */
export class EventLog {
  #sql: SqlStorage;
  #last: number | undefined;
  #bytes: number | undefined;
  /** The last `at` written, kept for its millisecond: a step's events share one. */
  #atMs = Number.NaN;
  #at = "";

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

  /**
   * Bytes of the retained events; summed once, then kept up to date.
   * `octet_length` is read from each row's header, so the sum never loads
   * the events' text (an index on `bytes` did the same, at the price of a
   * second written row per event).
   */
  get totalBytes(): number {
    this.#bytes ??= Number(
      this.#sql
        .exec<{ b: number | null }>(
          "SELECT sum(octet_length(data)) AS b FROM events"
        )
        .one().b ?? 0
    );
    return this.#bytes;
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
  ): EventText {
    const seq = this.lastSeq + 1;
    const now = Date.now();
    if (now !== this.#atMs) {
      this.#atMs = now;
      this.#at = new Date(now).toISOString();
    }
    const event: StoredEvent = { seq, type, episode, at: this.#at, ...data };
    const text = JSON.stringify(event);
    const bytes = utf8Length(text);
    this.#sql.exec(
      "INSERT INTO events (seq, episode, type, data, bytes) VALUES (?, ?, ?, ?, ?)",
      seq,
      episode,
      type,
      text,
      bytes
    );
    this.#last = seq;
    if (this.#bytes !== undefined) this.#bytes += bytes;
    return { seq, text };
  }

  /**
   * Up to `limit` events after `seq` while `budget` admits them, as the log
   * holds their text; read one row at a time, so a page that stops early
   * has read only what it returns.
   */
  page(seq: number, limit: number, budget: ReadBudget): EventText[] {
    const out: EventText[] = [];
    const rows = this.#sql.exec<{ seq: number; data: string; bytes: number }>(
      "SELECT seq, data, bytes FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
      seq,
      limit
    );
    for (const row of rows) {
      if (!budget.take(row.bytes + 1)) break;
      out.push({ seq: row.seq, text: row.data });
    }
    return out;
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
   * Drops the oldest events beyond `maxEvents` or beyond `maxBytes` of
   * event text, at most `batch` per call so a trim never holds the object
   * for long; the next commit trims further.
   */
  trim(maxEvents: number, maxBytes: number, batch = 1000): number {
    let cutoff = this.lastSeq - maxEvents;
    let excess = this.totalBytes - maxBytes;
    if (excess > 0) {
      const oldest = this.#sql.exec<{ seq: number; bytes: number }>(
        "SELECT seq, octet_length(data) AS bytes FROM events ORDER BY seq LIMIT ?",
        batch
      );
      for (const row of oldest) {
        if (excess <= 0) break;
        excess -= row.bytes;
        cutoff = Math.max(cutoff, row.seq);
      }
    }
    if (cutoff <= 0) return 0;
    const freed = this.#sql
      .exec<{ b: number | null }>(
        "SELECT sum(octet_length(data)) AS b FROM events WHERE seq IN (SELECT seq FROM events WHERE seq <= ? ORDER BY seq LIMIT ?)",
        cutoff,
        batch
      )
      .one().b;
    const deleted = this.#sql.exec(
      "DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE seq <= ? ORDER BY seq LIMIT ?)",
      cutoff,
      batch
    ).rowsWritten;
    if (this.#bytes !== undefined) this.#bytes -= Number(freed ?? 0);
    return deleted;
  }

  /** Forget the cached seq (after storage was rolled back or deleted). */
  reset(): void {
    this.#last = undefined;
    this.#bytes = undefined;
  }
}
