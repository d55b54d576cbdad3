/** @module A session named together with its credential, `<session_id>.<token>`: MCP's Mcp-Session-Id and Aviary's env_id. */

import type { Context } from "hono";
import type { AppEnv } from "./env";
import { signingKeys } from "./secrets";
import { verifyToken } from "./token";

/** The one string a client keeps for a session it did not create by hand. */
export const sessionCredential = (sessionId: string, token: string): string =>
  `${sessionId}.${token}`;

/** The session `value` names, if the token in it is that session's own. */
export const provenSession = async (
  c: Context<AppEnv>,
  value: string
): Promise<{ sessionId: string; durableId: DurableObjectId } | undefined> => {
  const dot = value.indexOf(".");
  if (dot <= 0) return undefined;
  const sessionId = value.slice(0, dot);
  const token = value.slice(dot + 1);
  if (!(await verifyToken(await signingKeys(c.env), sessionId, token))) {
    return undefined;
  }
  try {
    return { sessionId, durableId: c.env.SESSIONS.idFromString(sessionId) };
  } catch {
    return undefined;
  }
};
