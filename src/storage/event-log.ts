/**
 * @module The session's event log: every streamed change, with its seq,
 * append-only. A row holds a run of events (all a commit made, as a rule),
 * so a step costs one written row however many events it streams; each
 * event keeps its own seq, and a read can start at any of them.
 */

import { utf8Length } from "../json";
import type { ReadBudget } from "../protocol/read-budget";
import { RUN_SEPARATOR, textRuns } from "./row-text";
import { hasTable } from "./tables";

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

/** An appended event with what its row records. */
export interface PendingEvent extends EventText {
  episode: number;
  type: string;
}

/**
 * A row's events are their texts joined by RUN_SEPARATOR. `first` is NULL
 * for a row of one event (every row written before runs were).
 */
type Row = {
  seq: number;
  first: number | null;
  data: string;
};

/** The events of one row, in seq order. */
const eventsOf = (row: Row): EventText[] => {
  const first = row.first ?? row.seq;
  if (first === row.seq) return [{ seq: row.seq, text: row.data }];
  return row.data
    .split(RUN_SEPARATOR)
    .map((text, i) => ({ seq: first + i, text }));
};

/**
 * Events are appended to memory and written by `flush`: a mutation's
 * commit flushes them in its transaction, as one row; the session flushes
 * earlier whenever one is about to be seen (session/shared.ts `publish`), so
 * no event reaches a client before it is durable. They are never
 * rewritten; a mutation that never committed is followed by `step.aborted`.
 */
export class EventLog {
  #sql: SqlStorage;
  /** The newest durable seq; undefined until read. */
  #last: number | undefined;
  #bytes: number | undefined;
  #pending: PendingEvent[] = [];
  /** The last `at` written, kept for its millisecond: a step's events share one. */
  #atMs = Number.NaN;
  #at = "";

  /** Whether the log's table exists; a session that never wrote an event has none, and reading makes none. */
  #table: boolean | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #hasTable(): boolean {
    this.#table ||= hasTable(this.#sql, "events");
    return this.#table;
  }

  /** The newest durable seq (0 when none): what a reader can be given, and resume after. */
  get lastSeq(): number {
    this.#last ??= this.#hasTable()
      ? Number(
          this.#sql
            .exec<{ s: number | null }>("SELECT max(seq) AS s FROM events")
            .one().s ?? 0
        )
      : 0;
    return this.#last;
  }

  /** The newest seq handed out, written or not: the next event takes the one after. */
  get lastAssigned(): number {
    return this.#pending.at(-1)?.seq ?? this.lastSeq;
  }

  /** Whether events wait to be written. */
  get pending(): boolean {
    return this.#pending.length > 0;
  }

  /**
   * Bytes of the retained events; summed once, then kept up to date.
   * `octet_length` is read from each row's header, so the sum never loads
   * the events' text (an index on `bytes` did the same, at the price of a
   * second written row per event).
   */
  get totalBytes(): number {
    if (!this.#hasTable()) return 0;
    this.#bytes ??= Number(
      this.#sql
        .exec<{ b: number | null }>(
          "SELECT sum(octet_length(data)) AS b FROM events"
        )
        .one().b ?? 0
    );
    return this.#bytes;
  }

  /** The oldest retained seq (0 when none). */
  get oldestSeq(): number {
    if (!this.#hasTable()) return 0;
    const row = this.#sql
      .exec<{ s: number }>(
        "SELECT coalesce(first, seq) AS s FROM events ORDER BY seq LIMIT 1"
      )
      .toArray()[0];
    return row === undefined ? 0 : Number(row.s);
  }

  /** The newest durable event, or none (one row read). */
  newest(): StoredEvent | undefined {
    if (!this.#hasTable()) return undefined;
    const [row] = this.#sql
      .exec<Row>(
        "SELECT seq, first, data FROM events ORDER BY seq DESC LIMIT 1"
      )
      .toArray();
    const text = row === undefined ? undefined : eventsOf(row).at(-1)?.text;
    return text === undefined ? undefined : (JSON.parse(text) as StoredEvent);
  }

  /** Takes the next seq for an event; it is written by the next `flush`. */
  append(
    episode: number,
    type: string,
    data: Record<string, unknown>
  ): EventText {
    const seq = this.lastAssigned + 1;
    const now = Date.now();
    if (now !== this.#atMs) {
      this.#atMs = now;
      this.#at = new Date(now).toISOString();
    }
    const event: StoredEvent = { seq, type, episode, at: this.#at, ...data };
    const text = JSON.stringify(event);
    this.#pending.push({ seq, text, episode, type });
    return { seq, text };
  }

  /**
   * Writes the appended events, as few rows as fit (one, unless they pass
   * a row's limit), and returns them; `fold` (the session row's step
   * fields, session-row.ts) goes on the last row. Synchronous: inside a
   * transaction when it must commit with other writes.
   */
  flush(fold?: string): PendingEvent[] {
    const pending = this.#pending;
    if (pending.length === 0) return pending;
    this.#pending = [];
    try {
      const runs = textRuns(pending.map((e) => e.text));
      for (const [i, run] of runs.entries())
        this.#write(
          pending.slice(run.from, run.from + run.texts.length),
          i === runs.length - 1 ? fold : undefined
        );
    } catch (error) {
      // The caller's transaction rolls back what was written: keep them all.
      this.unflush(pending);
      throw error;
    }
    this.#table = true;
    return pending;
  }

  #write(run: PendingEvent[], fold: string | undefined): void {
    const head = run[0]!;
    const last = run.at(-1)!;
    const data =
      run.length === 1 ? head.text : run.map((e) => e.text).join(RUN_SEPARATOR);
    const bytes = utf8Length(data);
    this.#sql.exec(
      "INSERT INTO events (seq, first, episode, type, data, bytes, session) VALUES (?, ?, ?, ?, ?, ?, ?)",
      last.seq,
      run.length === 1 ? null : head.seq,
      head.episode,
      run.length === 1 ? head.type : "batch",
      data,
      bytes,
      fold ?? null
    );
    this.#last = last.seq;
    if (this.#bytes !== undefined) this.#bytes += bytes;
  }

  /**
   * After the transaction that wrote `events` (a `flush`) rolled back:
   * they wait to be written again, and the cached seq and bytes are read
   * again from what storage now holds.
   */
  unflush(events: readonly PendingEvent[]): void {
    this.#pending = [...events, ...this.#pending];
    this.#last = undefined;
    this.#bytes = undefined;
  }

  /** The events after `seq`, `limit` at most, read one row at a time. */
  *#after(seq: number, limit: number): Generator<EventText> {
    if (!(limit > 0) || !this.#hasTable()) return;
    let given = 0;
    // Every row holds at least one event, so `limit` rows are enough.
    const rows = this.#sql.exec<Row>(
      "SELECT seq, first, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
      seq,
      limit
    );
    for (const row of rows) {
      for (const event of eventsOf(row)) {
        if (event.seq <= seq) continue;
        if (given++ === limit) return;
        yield event;
      }
    }
  }

  /**
   * Up to `limit` events after `seq` while `budget` admits them, as the log
   * holds their text; a page that stops early has read only what it returns.
   */
  page(seq: number, limit: number, budget: ReadBudget): EventText[] {
    const out: EventText[] = [];
    for (const event of this.#after(seq, limit)) {
      if (!budget.take(utf8Length(event.text) + 1)) break;
      out.push(event);
    }
    return out;
  }

  after(seq: number, limit: number): StoredEvent[] {
    return [...this.#after(seq, limit)].map(
      (event) => JSON.parse(event.text) as StoredEvent
    );
  }

  /**
   * Drops the oldest rows beyond `maxEvents` events or beyond `maxBytes`
   * of event text, at most `batch` rows per call so a trim never holds the
   * object for long; the next commit trims further. A row goes whole, so
   * a run that straddles the cut is kept. Rows after `keepAfter` stay
   * (they may hold the session row's newest fold); the answer says whether
   * that held back a row the limits would have dropped.
   */
  trim(
    maxEvents: number,
    maxBytes: number,
    keepAfter: number,
    batch = 1000
  ): { deleted: number; held: boolean } {
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
    const held = cutoff > keepAfter;
    // The newest row always stays: with none, a restart would read the
    // last seq as 0 and hand out again seqs clients have seen.
    cutoff = Math.min(cutoff, keepAfter, this.lastSeq - 1);
    if (cutoff <= 0) return { deleted: 0, held };
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
    return { deleted, held };
  }

  /** Forget the cached seq (after storage was rolled back or deleted). */
  reset(): void {
    this.#last = undefined;
    this.#bytes = undefined;
    this.#table = undefined;
    this.#pending = [];
  }
}
