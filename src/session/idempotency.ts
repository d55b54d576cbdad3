/** @module Idempotency-Key records: a retry gets the stored response and runs nothing. */

import { RoostError } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyKey {
  /** Route scope, e.g. "step" or "tools/search". */
  scope: string;
  key: string;
  /** Hash of the request body, to tell a retry from a reuse of the key. */
  hash: string;
}

/** Returns the stored response of an earlier identical request, if any. */
export const lookup = (
  sql: SqlStorage,
  idem: IdempotencyKey,
  now: number
): unknown | undefined => {
  const [row] = sql
    .exec<{ hash: string; response: string; expires_at: number }>(
      "SELECT hash, response, expires_at FROM idempotency WHERE scope = ? AND key = ?",
      idem.scope,
      idem.key
    )
    .toArray();
  if (row === undefined || row.expires_at <= now) return undefined;
  if (row.hash !== idem.hash) {
    throw new RoostError(
      "idempotency_mismatch",
      `Idempotency-Key "${idem.key}" was used with a different request body; use a new key for a new request.`
    );
  }
  return JSON.parse(row.response);
};

/** Part of a mutation's commit. */
export const record = (
  sql: SqlStorage,
  idem: IdempotencyKey,
  response: unknown,
  now: number
): void => {
  sql.exec(
    "INSERT OR REPLACE INTO idempotency (scope, key, hash, response, expires_at) VALUES (?, ?, ?, ?, ?)",
    idem.scope,
    idem.key,
    idem.hash,
    JSON.stringify(response),
    now + IDEMPOTENCY_TTL_MS
  );
};

/** Deletes expired records, a bounded batch at a time; returns how many. */
export const expire = (sql: SqlStorage, now: number, batch = 1000): number =>
  sql.exec(
    "DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE expires_at <= ? LIMIT ?)",
    now,
    batch
  ).rowsWritten;

/** The earliest expiry still stored, for the schedule. */
export const nextExpiry = (sql: SqlStorage): number | undefined => {
  const v = sql
    .exec<{ t: number | null }>("SELECT min(expires_at) AS t FROM idempotency")
    .one().t;
  return v ?? undefined;
};
