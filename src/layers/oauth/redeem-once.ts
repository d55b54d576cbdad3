/**
 * @module Single use for OAuth's authorization codes and refresh tokens,
 * and the revocation of a grant whose code or refresh token is used twice.
 * Both are signed, so the worker can check them without storage; what a
 * signature cannot say is whether one was already used. One OAuthLedger
 * object keeps the ids used (object.ts, ledger.ts): a Durable Object
 * answers one call at a time, so two redemptions of the same code cannot
 * both succeed.
 */

const TABLE = `CREATE TABLE IF NOT EXISTS oauth_redeemed (
  key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
)`;

/**
 * What redeeming found: unused until now (`fresh`); used before, so its
 * whole grant is revoked from now on (`reused`); or of a grant revoked
 * already (`revoked`).
 */
export type Redemption = "fresh" | "reused" | "revoked";

/**
 * Records `key` as used until `expiresAtMs` (after that the signature
 * refuses it anyway, so the row can go). A grant's code and refresh
 * tokens share its `family` (the code's id): a key presented a second
 * time means two holders have the chain (a stolen copy and its owner),
 * and no one can tell which is which, so the family is revoked until
 * `familyUntilMs` (when every token of it has expired), as OAuth 2.1's
 * refresh token rotation and RFC 6819 (5.2.2.3) ask. One row more, and
 * only then.
 */
export const redeemInFamily = (
  sql: SqlStorage,
  key: string,
  family: string,
  expiresAtMs: number,
  familyUntilMs: number,
  nowMs: number
): Redemption => {
  sql.exec(TABLE);
  // Expired rows go on every call: the table holds only what is still live.
  sql.exec("DELETE FROM oauth_redeemed WHERE expires_at <= ?", nowMs);
  const revoked = `family:${family}`;
  const [gone] = sql
    .exec("SELECT 1 FROM oauth_redeemed WHERE key = ?", revoked)
    .toArray();
  if (gone !== undefined) return "revoked";
  const inserted = sql.exec(
    "INSERT INTO oauth_redeemed (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING RETURNING key",
    key,
    expiresAtMs
  );
  if (inserted.toArray().length > 0) return "fresh";
  sql.exec(
    "INSERT INTO oauth_redeemed (key, expires_at) VALUES (?, ?)",
    revoked,
    familyUntilMs
  );
  return "reused";
};
