/** @module A session named together with its credential, `<session_id>.<token>`: MCP's Mcp-Session-Id and Aviary's env_id. */

import type { Context } from "hono";
import type { Grant } from "../protocol/scopes";
import type { AppEnv } from "./env";
import { isExpired, verifySessionToken } from "./scoped-token";
import { signingKeys } from "./secrets";

/** The one string a client keeps for a session it did not create by hand. */
export const sessionCredential = (sessionId: string, token: string): string =>
  `${sessionId}.${token}`;

/**
 * The session `value` names and what its token grants, if the token is
 * that session's own and unexpired (these protocols answer every refusal
 * alike, as a session they do not know).
 */
export const provenSession = async (
  c: Context<AppEnv>,
  value: string
): Promise<
  { sessionId: string; durableId: DurableObjectId; grant: Grant } | undefined
> => {
  const dot = value.indexOf(".");
  if (dot <= 0) return undefined;
  const sessionId = value.slice(0, dot);
  const token = value.slice(dot + 1);
  const grant = await verifySessionToken(
    await signingKeys(c.env),
    sessionId,
    token
  );
  if (grant === undefined || isExpired(grant, Date.now())) return undefined;
  try {
    return {
      sessionId,
      durableId: c.env.SESSIONS.idFromString(sessionId),
      grant
    };
  } catch {
    return undefined;
  }
};
