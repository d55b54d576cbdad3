/** @module The session's SQLite tables for the store, hidden store, state and transcript: creation, version, row limits and the purge of old episodes. */

import { RoostError } from "../errors";
import { utf8Length } from "../json";

export const SCHEMA_VERSION = 1;

/**
 * The largest JSON text one value may take in a row. SQLite in a Durable
 * Object refuses rows over 2 MB; the rest is left for the row's other
 * columns, so a write fails here, with a clear error, before any statement.
 */
export const MAX_VALUE_BYTES = 1_900_000;

/** SQLite in a Durable Object allows at most 100 bound parameters per statement. */
export const MAX_BOUND_PARAMETERS = 100;

// Every data table carries `episode`, so a reset only bumps a number and the
// old rows go later, in bounded batches (`purgeEpisodesBefore`).
const TABLES = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)`,
  `CREATE TABLE IF NOT EXISTS store_keys (
    id INTEGER PRIMARY KEY,
    episode INTEGER NOT NULL,
    tool TEXT NOT NULL,
    name TEXT NOT NULL,
    entries INTEGER NOT NULL DEFAULT 0,
    objects INTEGER NOT NULL DEFAULT 0,
    UNIQUE (episode, tool, name))`,
  // Apart from keys: a step that streamed ids and then aborted leaves its
  // counter raised for a key that was never written.
  `CREATE TABLE IF NOT EXISTS store_counters (
    episode INTEGER NOT NULL,
    tool TEXT NOT NULL,
    name TEXT NOT NULL,
    counter INTEGER NOT NULL,
    PRIMARY KEY (episode, tool, name))`,
  `CREATE TABLE IF NOT EXISTS store_entries (
    id INTEGER PRIMARY KEY,
    episode INTEGER NOT NULL,
    key_id INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    metadata TEXT NOT NULL,
    object_count INTEGER NOT NULL,
    written INTEGER NOT NULL)`,
  `CREATE UNIQUE INDEX IF NOT EXISTS store_entries_by_key
    ON store_entries (key_id, ord)`,
  `CREATE INDEX IF NOT EXISTS store_entries_by_write
    ON store_entries (episode, written)`,
  // A rowid table, as SQLite advises for rows this large. `episode` is not
  // read (a key's id already implies it) but keeps every row attributable.
  `CREATE TABLE IF NOT EXISTS store_objects (
    entry_id INTEGER NOT NULL,
    i INTEGER NOT NULL,
    episode INTEGER NOT NULL,
    key_id INTEGER NOT NULL,
    ref_id TEXT,
    hash TEXT,
    body TEXT NOT NULL,
    PRIMARY KEY (entry_id, i))`,
  // Serves the [repeat] lookup and, by its key_id prefix, clearing and purging a key.
  `CREATE INDEX IF NOT EXISTS store_objects_by_hash
    ON store_objects (key_id, hash)`,
  `CREATE TABLE IF NOT EXISTS hidden (
    episode INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (episode, key))`,
  `CREATE TABLE IF NOT EXISTS state (
    episode INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (episode, key))`,
  `CREATE TABLE IF NOT EXISTS transcript (
    episode INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (episode, idx))`
];

/**
 * The recorded schema version, or undefined when the tables were never
 * created. Reads `sqlite_master` first, so probing creates nothing.
 */
export const schemaVersion = (sql: SqlStorage): number | undefined => {
  const meta = sql
    .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    .toArray();
  if (meta.length === 0) return undefined;
  const row = sql
    .exec<{ value: string | null }>(
      "SELECT value FROM meta WHERE key = 'schema_version'"
    )
    .toArray()[0];
  return row?.value == null ? undefined : Number(row.value);
};

/**
 * Creates the tables if they are missing and records the version. Safe to
 * call on every wake: an up-to-date database costs two reads.
 *
 * @example
 * ctx.storage.transactionSync(() => createSchema(ctx.storage.sql));
 */
export const createSchema = (sql: SqlStorage): void => {
  const found = schemaVersion(sql);
  if (found === SCHEMA_VERSION) return;
  if (found !== undefined && found > SCHEMA_VERSION) {
    // Older code writing into a newer layout could corrupt it; refuse instead.
    throw new RoostError(
      "internal",
      `Session storage has schema version ${found}, newer than this code's ${SCHEMA_VERSION}. Deploy the newer version.`,
      { found, supported: SCHEMA_VERSION }
    );
  }
  for (const statement of TABLES) sql.exec(statement);
  sql.exec(
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    String(SCHEMA_VERSION)
  );
};

/**
 * `text` if it fits one row, or `payload_too_large` before anything is
 * written. `besides` is the row's other text (a key, an id), which counts
 * towards the same row limit.
 */
export const fitRow = (text: string, what: string, besides = ""): string => {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no encoding.
  if ((text.length + besides.length) * 3 > MAX_VALUE_BYTES) {
    const bytes = utf8Length(text) + utf8Length(besides);
    if (bytes > MAX_VALUE_BYTES) {
      throw new RoostError(
        "payload_too_large",
        `${what} takes ${bytes} bytes as JSON; one stored value may take at most ${MAX_VALUE_BYTES}. Split it into smaller values.`,
        // Not configurable: the platform's own limit on one stored value.
        { limit: "storedValueBytes", max: MAX_VALUE_BYTES, bytes }
      );
    }
  }
  return text;
};

/** JSON text of a value bound for one row (see `fitRow`). */
export const toRowText = (
  value: unknown,
  what: string,
  besides = ""
): string => {
  const text: string | undefined = JSON.stringify(value);
  if (text === undefined) {
    throw new RoostError("invalid_request", `${what} is not a JSON value.`);
  }
  return fitRow(text, what, besides);
};

/** Deletes rows picked by `pick` (a `SELECT rowid … LIMIT ?` with one more parameter than `params`). */
const deleteBatch = (
  sql: SqlStorage,
  table: string,
  pick: string,
  params: (string | number)[],
  limit: number
): number =>
  sql
    .exec(
      `DELETE FROM ${table} WHERE rowid IN (${pick}) RETURNING 1`,
      ...params,
      limit
    )
    .toArray().length;

/** Purges one old key: its objects, then its entries, then the key itself. */
const purgeKey = (sql: SqlStorage, keyId: number, budget: number): number => {
  let left = budget;
  left -= deleteBatch(
    sql,
    "store_objects",
    "SELECT rowid FROM store_objects WHERE key_id = ? LIMIT ?",
    [keyId],
    left
  );
  if (left === 0) return budget;
  left -= deleteBatch(
    sql,
    "store_entries",
    "SELECT rowid FROM store_entries WHERE key_id = ? LIMIT ?",
    [keyId],
    left
  );
  if (left === 0) return budget;
  sql.exec("DELETE FROM store_keys WHERE id = ?", keyId);
  return budget - left + 1;
};

/**
 * Deletes at most `maxRows` rows of episodes before `episode`, and returns
 * how many it deleted (0 when nothing old is left). Every statement is an
 * indexed range, so a batch costs the same however big the session is.
 * Objects go before their entries and entries before their key, so even a
 * batch cut short leaves nothing dangling (and old rows are never read).
 *
 * @example
 * while (purgeEpisodesBefore(sql, episode, 1000) > 0) { … next alarm … }
 */
export const purgeEpisodesBefore = (
  sql: SqlStorage,
  episode: number,
  maxRows: number
): number => {
  let left = Math.max(0, Math.floor(maxRows));
  while (left > 0) {
    const key = sql
      .exec<{ id: number }>(
        "SELECT id FROM store_keys WHERE episode < ? LIMIT 1",
        episode
      )
      .toArray()[0];
    if (key === undefined) break;
    left -= purgeKey(sql, key.id, left);
  }
  for (const table of ["store_counters", "hidden", "state", "transcript"]) {
    if (left === 0) break;
    left -= deleteBatch(
      sql,
      table,
      `SELECT rowid FROM ${table} WHERE episode < ? LIMIT ?`,
      [episode],
      left
    );
  }
  return Math.max(0, Math.floor(maxRows)) - left;
};
