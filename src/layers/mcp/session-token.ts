/** @module The token an environment's MCP endpoint puts in Mcp-Session-Id for a session it made. */

import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import type { StartedSession } from "../../http/gateway";
import { signScopedToken } from "../../http/scoped-token";
import { signingKeys } from "../../http/secrets";
import { OAUTH_SCOPE, TTL_S } from "../oauth/settings";

/**
 * The session's first token, except for a client that came with an OAuth
 * token: that client may act, never control, on the session made for it,
 * so its Mcp-Session-Id carries an act token instead.
 */
export const mcpSessionToken = async (
  c: Context<AppEnv>,
  started: StartedSession
): Promise<string> => {
  if (c.get("oauth") !== true) return started.token;
  const now = Date.now();
  return signScopedToken(await signingKeys(c.env), started.sessionId, {
    scope: OAUTH_SCOPE,
    issuedAt: now,
    expiresAt: Math.floor(now / 1000) + TTL_S.mcpSession
  });
};
