/**
 * @module The outcomes a session sent to its statistics and could not
 * confirm, kept in its own storage (a row of `meta`) until an outcome that
 * gets through carries their number: the statistics then say how many
 * episodes they may lack, and an object evicted in between forgets none.
 */

import { hasTable } from "../../storage/tables";

const KEY = "task_stats_unconfirmed";

/**
 * Per session object, by its storage: the count not yet handed to a send,
 * read from storage once. The stored count is larger while a send that
 * carries some is on its way; it loses them once that send is confirmed.
 */
const free = new WeakMap<SqlStorage, number>();

const stored = (sql: SqlStorage): number => {
  // Looked up, not queried: a fresh session has no meta table yet, and a
  // query would make it (tables come on first use), three rows written
  // to save the few this look reads, once per object.
  if (!hasTable(sql, "meta")) return 0;
  const [row] = sql
    .exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", KEY)
    .toArray();
  return row === undefined ? 0 : Number(row.value);
};

const store = (sql: SqlStorage, count: number): void => {
  // A send outlives its commit: the session may be gone, and a write now
  // would remake a table in an object nothing cleans up.
  if (!hasTable(sql, "session")) return;
  if (count > 0)
    sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      KEY,
      String(count)
    );
  else if (hasTable(sql, "meta"))
    sql.exec("DELETE FROM meta WHERE key = ?", KEY);
};

/**
 * The unconfirmed outcomes the next send carries, taken synchronously so
 * two sends at once never carry the same ones. Nothing is written: they
 * stay stored until `confirmed`.
 */
export const takeUnconfirmed = (sql: SqlStorage): number => {
  const count = free.get(sql) ?? stored(sql);
  free.set(sql, 0);
  return count;
};

/** A send that carried `carried` got through: they are the statistics' now. */
export const confirmed = (sql: SqlStorage, carried: number): void => {
  if (carried > 0) store(sql, stored(sql) - carried);
};

/** A send failed: its outcome, and what it carried, wait for the next one. The count now stored. */
export const unconfirmed = (sql: SqlStorage, carried: number): number => {
  free.set(sql, (free.get(sql) ?? 0) + carried + 1);
  const count = stored(sql) + 1;
  store(sql, count);
  return count;
};
