/**
 * @module OAuth's single-use ledger as a Durable Object class of its own,
 * bound as `OAUTH_LEDGER`: one object (by name) keeps the ids of the
 * codes and refresh tokens used (redeem-once.ts).
 */

import { DurableObject } from "cloudflare:workers";
import { redeemOnce } from "./redeem-once";

/**
 * Export it from the worker (`export { OAuthLedger } from
 * "roost-edge/layers/oauth"`) and bind it as `OAUTH_LEDGER` with a SQLite
 * migration (docs/16-layers.md).
 */
export class OAuthLedger extends DurableObject {
  /** Whether `key` was unused until now. */
  redeemOnce(key: string, expiresAtMs: number): boolean {
    return redeemOnce(this.ctx.storage.sql, key, expiresAtMs, Date.now());
  }
}
