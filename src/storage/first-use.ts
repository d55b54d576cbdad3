/**
 * @module Sessions on probation: one a client opened without a word of its
 * own (an MCP `initialize`, which creates and resets a session) is deleted
 * after a short idle time unless a further request uses it, instead of
 * lingering for the full idle TTL. Kept in `meta`, so it survives eviction.
 */

import { hasTable } from "./tables";

const KEY = "awaiting_use";

/** Marks the session as awaiting its first real use. Synchronous: safe inside transactionSync. */
export const markAwaitingUse = (sql: SqlStorage): void => {
  sql.exec(
    "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING",
    KEY
  );
};

/** Without a `meta` table nothing awaits; asking makes none (tables.ts). */
export const isAwaitingUse = (sql: SqlStorage): boolean =>
  hasTable(sql, "meta") &&
  sql.exec("SELECT 1 FROM meta WHERE key = ?", KEY).toArray().length > 0;

export const clearAwaitingUse = (sql: SqlStorage): void => {
  sql.exec("DELETE FROM meta WHERE key = ?", KEY);
};
