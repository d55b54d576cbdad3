/** @module One JSON row per key of an episode: the storage the hidden store and typed state share. */

import type { JsonValue } from "../json";
import { rowsIfPresent } from "./tables";

/** The key/value tables of schema.ts; a fixed set, so naming one in SQL is safe. */
export type KeyValueTable = "hidden" | "state";

/**
 * Reads parse fresh JSON, so nothing a caller holds is shared with the
 * store, and read a table not made yet as empty (tables.ts); keys come back in first-set (rowid) order, as a Map gives them.
 * Callers check and serialise values: the two stores refuse different things.
 */
export class EpisodeRows {
  readonly #sql: SqlStorage;
  readonly #episode: number;
  readonly #table: KeyValueTable;

  constructor(sql: SqlStorage, table: KeyValueTable, episode: number) {
    this.#sql = sql;
    this.#table = table;
    this.#episode = episode;
  }

  get(key: string): JsonValue | undefined {
    const text = this.text(key);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  }

  /** A key's value as its stored JSON text. */
  text(key: string): string | undefined {
    for (const row of rowsIfPresent<{ value: string }>(
      this.#sql,
      this.#table,
      `SELECT value FROM ${this.#table} WHERE episode = ? AND key = ?`,
      this.#episode,
      key
    ))
      return row.value;
    return undefined;
  }

  /** Stores `text`, already serialised and size-checked by the caller. */
  put(key: string, text: string): void {
    this.#sql.exec(
      `INSERT INTO ${this.#table} (episode, key, value) VALUES (?, ?, ?) ON CONFLICT (episode, key) DO UPDATE SET value = excluded.value`,
      this.#episode,
      key,
      text
    );
  }

  has(key: string): boolean {
    return this.text(key) !== undefined;
  }

  delete(key: string): boolean {
    return (
      this.#sql
        .exec(
          `DELETE FROM ${this.#table} WHERE episode = ? AND key = ? RETURNING 1`,
          this.#episode,
          key
        )
        .toArray().length > 0
    );
  }

  keys(): string[] {
    return Array.from(
      rowsIfPresent<{ key: string }>(
        this.#sql,
        this.#table,
        `SELECT key FROM ${this.#table} WHERE episode = ? ORDER BY rowid`,
        this.#episode
      ),
      (row) => row.key
    );
  }
}
