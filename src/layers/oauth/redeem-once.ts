/**
 * @module Single use for OAuth's authorization codes and refresh tokens.
 * Both are signed, so the worker can check them without storage; what a
 * signature cannot say is whether one was already used. One OAuthLedger
 * object keeps the ids used (object.ts, ledger.ts): a
 * Durable Object answers one call at a time, so two redemptions of the
 * same code cannot both succeed.
 */

const TABLE = `CREATE TABLE IF NOT EXISTS oauth_redeemed (
  key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
)`;

/**
 * Records `key` as used until `expiresAtMs` (after that the signature
 * refuses it anyway, so the row can go). Whether it was unused before.
 */
export const redeemOnce = (
  sql: SqlStorage,
  key: string,
  expiresAtMs: number,
  nowMs: number
): boolean => {
  sql.exec(TABLE);
  // Expired rows go on every call: the table holds only what is still live.
  sql.exec("DELETE FROM oauth_redeemed WHERE expires_at <= ?", nowMs);
  const inserted = sql.exec(
    "INSERT INTO oauth_redeemed (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING RETURNING key",
    key,
    expiresAtMs
  );
  return inserted.toArray().length > 0;
};
