/**
 * @module OAuth's single-use ledger as a Durable Object class of its own,
 * bound as `OAUTH_LEDGER`: one object (by name) keeps the ids of the
 * codes and refresh tokens used, and the grants revoked for a second use
 * of one (redeem-once.ts).
 */

import { DurableObject } from "cloudflare:workers";
import { type Redemption, redeemInFamily } from "./redeem-once";

/**
 * Export it from the worker (`export { OAuthLedger } from
 * "roost-edge/layers/oauth"`) and bind it as `OAUTH_LEDGER` with a SQLite
 * migration (docs/16-layers.md).
 */
export class OAuthLedger extends DurableObject {
  /** Whether `key` was unused until now, used before (its grant now revoked), or of a revoked grant. */
  redeem(
    key: string,
    family: string,
    expiresAtMs: number,
    familyUntilMs: number
  ): Redemption {
    return redeemInFamily(
      this.ctx.storage.sql,
      key,
      family,
      expiresAtMs,
      familyUntilMs,
      Date.now()
    );
  }
}
