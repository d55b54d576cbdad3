/** @module The token an environment's MCP endpoint puts in Mcp-Session-Id for a session it made. */

import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import type { StartedSession } from "../../http/gateway";
import { signScopedToken } from "../../http/scoped-token";
import { signingKeys } from "../../http/secrets";
import { MAX_TOKEN_TTL_S } from "../../protocol/http-tokens";

/**
 * The session's first token, except for a client admitted by a layer's
 * access token (OAuth's, env.ts's `oauth`): that client may act, never
 * control, on the session made for it, so its Mcp-Session-Id carries an
 * act token, as long-lived as a scoped token may be. Known here without
 * importing the OAuth layer, which a worker with MCP alone does not carry.
 */
export const mcpSessionToken = async (
  c: Context<AppEnv>,
  started: StartedSession
): Promise<string> => {
  if (c.get("oauth") !== true) return started.token;
  const now = Date.now();
  return signScopedToken(await signingKeys(c.env), started.sessionId, {
    scope: "act",
    issuedAt: now,
    expiresAt: Math.floor(now / 1000) + MAX_TOKEN_TTL_S
  });
};
