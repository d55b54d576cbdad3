/**
 * @module Revoked scopes: for each scope, the time before which its tokens
 * were revoked. Kept in `meta`, so a session that never revoked anything
 * makes no table and a check reads it once per object (session/shared.ts).
 */

import type { Scope } from "../protocol/scopes";
import { hasTable } from "./tables";

const KEY = "revoked";

/** Per scope, ms since the epoch: its tokens signed before then are refused. */
export type Revocations = Partial<Record<Scope, number>>;

export const readRevocations = (sql: SqlStorage): Revocations => {
  if (!hasTable(sql, "meta")) return {};
  const [row] = sql
    .exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", KEY)
    .toArray();
  return row === undefined ? {} : (JSON.parse(row.value) as Revocations);
};

/** Synchronous: safe inside transactionSync. */
export const writeRevocations = (sql: SqlStorage, r: Revocations): void => {
  sql.exec(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    KEY,
    JSON.stringify(r)
  );
};
