/** @module Typed state and transcript backends on the session's SQLite: one row per state key, one per message. */

import { type JsonValue, utf8Length } from "../json";
import type { Message } from "../messages/schema";
import type { ReadBudget } from "../protocol/read-budget";
import type { StateBackend, TranscriptBackend } from "../state/types";
import { EpisodeRows } from "./episode-rows";
import { toRowText } from "./row-text";

/**
 * State values as JSON text, one row per key of the episode. Keys come back
 * in the order they were first set (rowid order), as a Map would give them.
 *
 * @example
 * const state = new SqliteStateBackend(ctx.storage.sql, episode);
 */
export class SqliteStateBackend implements StateBackend {
  readonly #rows: EpisodeRows;

  constructor(sql: SqlStorage, episode: number) {
    this.#rows = new EpisodeRows(sql, "state", episode);
  }

  get(key: string): JsonValue | undefined {
    return this.#rows.get(key);
  }

  set(key: string, value: JsonValue): void {
    this.#rows.put(
      key,
      toRowText(value, `State key ${JSON.stringify(key)}`, key)
    );
  }

  has(key: string): boolean {
    return this.#rows.has(key);
  }

  keys(): string[] {
    return this.#rows.keys();
  }
}

/**
 * The transcript, one row per message keyed by its index. Indexes are dense
 * from 0, so the count is the last index + 1 (one probe of the primary key)
 * and a page is a key range, never an OFFSET walk. An instance lives for
 * one mutation or read and is the only writer meanwhile, so it probes the
 * count once and keeps it.
 *
 * @example
 * const transcript = new SqliteTranscriptBackend(ctx.storage.sql, episode);
 * transcript.list(transcript.count() - 20, 20); // the last twenty messages
 */
export class SqliteTranscriptBackend implements TranscriptBackend {
  readonly #sql: SqlStorage;
  readonly #episode: number;
  #count: number | undefined;

  constructor(sql: SqlStorage, episode: number) {
    this.#sql = sql;
    this.#episode = episode;
  }

  append(messages: Message[]): void {
    // Every message is checked before the first row goes in.
    const texts = messages.map((m, i) => toRowText(m, `messages[${i}]`));
    let idx = this.count();
    for (const text of texts) {
      this.#sql.exec(
        "INSERT INTO transcript (episode, idx, message) VALUES (?, ?, ?)",
        this.#episode,
        idx++,
        text
      );
    }
    this.#count = idx;
  }

  count(): number {
    this.#count ??= this.#sql
      .exec<{ n: number }>(
        "SELECT coalesce(max(idx), -1) + 1 AS n FROM transcript WHERE episode = ?",
        this.#episode
      )
      .one().n;
    return this.#count;
  }

  /**
   * Up to `limit` messages from `offset` while `budget` admits them, read
   * one row at a time so a page that stops has read only what it returns.
   */
  page(offset: number, limit: number, budget: ReadBudget): Message[] {
    const out: Message[] = [];
    if (!(limit > 0)) return out;
    const rows = this.#sql.exec<{ message: string }>(
      "SELECT message FROM transcript WHERE episode = ? AND idx >= ? ORDER BY idx LIMIT ?",
      this.#episode,
      Math.max(0, Math.floor(offset)),
      Math.floor(limit)
    );
    for (const { message } of rows) {
      if (!budget.take(utf8Length(message) + 1)) break;
      out.push(JSON.parse(message) as Message);
    }
    return out;
  }

  list(offset: number, limit: number): Message[] {
    const count = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : -1;
    if (count === 0) return [];
    return this.#sql
      .exec<{ message: string }>(
        "SELECT message FROM transcript WHERE episode = ? AND idx >= ? ORDER BY idx LIMIT ?",
        this.#episode,
        Math.max(0, Math.floor(offset)),
        count
      )
      .toArray()
      .map((row) => JSON.parse(row.message) as Message);
  }
}
