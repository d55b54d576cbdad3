/** @module Idempotency-Key records: a retry gets the stored response and runs nothing. */

import { RoostError } from "../errors";
import { canonicalJson, utf8Length } from "../json";

/** A stored response must fit one SQLite row (2 MB) with room to spare. */
const MAX_STORED_BYTES = 1_000_000;
const TOO_LARGE = { __roost_response_too_large__: true };

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyKey {
  /** Route scope, e.g. "step" or "tools/search". */
  scope: string;
  key: string;
  /** `requestHash` of the body, to tell a retry from a reuse of the key. */
  hash: string;
}

/**
 * The hash a key is bound to: the validated request body as canonical JSON
 * (keys sorted), so HTTP and the WebSocket agree on what "the same request"
 * is, and spacing or key order never turn a retry into a mismatch.
 */
export const requestHash = async (body: unknown): Promise<string> => {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(canonicalJson(body ?? {}))
  );
  return Array.from(new Uint8Array(digest), (b) =>
    b.toString(16).padStart(2, "0")
  ).join("");
};

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
  const response: unknown = JSON.parse(row.response);
  if (
    typeof response === "object" &&
    response !== null &&
    Object.hasOwn(response, "__roost_response_too_large__")
  ) {
    throw new RoostError(
      "conflict",
      `The request with Idempotency-Key "${idem.key}" was applied, but its response was too large to keep; read the session to see its effect.`
    );
  }
  return response;
};

/** Part of a mutation's commit; `ttlMs` shortens how long it is kept (a marker of work in progress). */
export const record = (
  sql: SqlStorage,
  idem: IdempotencyKey,
  response: unknown,
  now: number,
  ttlMs = IDEMPOTENCY_TTL_MS
): void => {
  let text = JSON.stringify(response);
  if (utf8Length(text) > MAX_STORED_BYTES) text = JSON.stringify(TOO_LARGE);
  sql.exec(
    "INSERT OR REPLACE INTO idempotency (scope, key, hash, response, expires_at) VALUES (?, ?, ?, ?, ?)",
    idem.scope,
    idem.key,
    idem.hash,
    text,
    now + ttlMs
  );
};

/** Forgets a record: the work it marked failed, and a retry should run it again. */
export const forget = (sql: SqlStorage, idem: IdempotencyKey): void => {
  sql.exec(
    "DELETE FROM idempotency WHERE scope = ? AND key = ?",
    idem.scope,
    idem.key
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
