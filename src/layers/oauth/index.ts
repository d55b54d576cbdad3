/**
 * @module The OAuth layer: the worker as an OAuth 2.1 authorization server
 * for its MCP endpoints (with `ROOST_OAUTH=1`), for hosted chat apps that
 * connect to MCP servers only through OAuth. It goes with `mcp()`.
 */

import type { Layer } from "../../http/layer";
import { oauthAccess } from "./access";
import { oauthChallenge } from "./challenge";
import { redeemOnce } from "./redeem-once";
import { registerOAuthRoutes } from "./routes";

/** The single-use ledger's method, on the one object kept for it (ledger.ts). */
export interface LedgerMethods {
  /** Whether `key` was unused until now. */
  redeemOnce(key: string, expiresAtMs: number): boolean;
}

export const oauth = (): Layer => ({
  name: "oauth",
  around: [
    ["/v1/sessions/:id/mcp", oauthChallenge],
    ["/v1/environments/:name/mcp", oauthChallenge]
  ],
  accessTokens: async (c, credential) =>
    (await oauthAccess(c, credential))?.grant,
  install: registerOAuthRoutes,
  extendClass: (Base) =>
    class extends Base implements LedgerMethods {
      redeemOnce(key: string, expiresAtMs: number): boolean {
        return redeemOnce(this.ctx.storage.sql, key, expiresAtMs, Date.now());
      }
    }
});
