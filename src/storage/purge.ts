/** @module Old episodes' rows, deleted in bounded batches from the alarm. */

import { EPISODE_TABLES, hasTable } from "./tables";

/** The per-episode tables deleted row by row, in any order (the store's go by key). */
export const BATCHED = Object.entries(EPISODE_TABLES)
  .filter(([, how]) => how.purge === "batch")
  .map(([table]) => table);

/** The per-episode tables kept while the log retains an episode's events (rescore-rows.ts). */
export const WITH_LOG = Object.entries(EPISODE_TABLES)
  .filter(([, how]) => how.purge === "with log")
  .map(([table]) => table);

/** A table without rowid is named row by row by its primary key. */
const KEY_OF: Readonly<Record<string, string>> = {
  rescore_log: "episode, seq, part"
};

/**
 * The oldest episode the event log still holds events of: rows of
 * earlier ones serve nothing. Never past `current`, whose rows stay.
 */
const oldestLogged = (sql: SqlStorage, current: number): number => {
  if (!hasTable(sql, "events")) return current;
  const row = sql
    .exec<{ episode: number }>(
      "SELECT episode FROM events ORDER BY seq LIMIT 1"
    )
    .toArray()[0];
  return row === undefined ? current : Math.min(current, Number(row.episode));
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
  // A table never made (tables.ts) holds nothing to purge; asking makes none.
  const store = hasTable(sql, "store_keys");
  while (left > 0 && store) {
    const key = sql
      .exec<{ id: number }>(
        "SELECT id FROM store_keys WHERE episode < ? LIMIT 1",
        episode
      )
      .toArray()[0];
    if (key === undefined) break;
    left -= purgeKey(sql, key.id, left);
  }
  for (const table of BATCHED) {
    if (left === 0) break;
    if (!hasTable(sql, table)) continue;
    left -= deleteBatch(
      sql,
      table,
      `SELECT rowid FROM ${table} WHERE episode < ? LIMIT ?`,
      [episode],
      left
    );
  }
  const logged = left > 0 ? oldestLogged(sql, episode) : 0;
  for (const table of WITH_LOG) {
    if (left === 0) break;
    if (!hasTable(sql, table)) continue;
    left -= sql
      .exec(
        `DELETE FROM ${table} WHERE (${KEY_OF[table] ?? "rowid"}) IN (SELECT ${KEY_OF[table] ?? "rowid"} FROM ${table} WHERE episode < ? LIMIT ?) RETURNING 1`,
        logged,
        left
      )
      .toArray().length;
  }
  return Math.max(0, Math.floor(maxRows)) - left;
};
