/**
 * @module A task id that leads back to its session, for a stateless client
 * of an environment's endpoint: it polls with the id alone, so the id must
 * name the session and prove the right to it. It proves the right to that
 * one task only: `<session_id>~<task_id>~<issued, base 36>~<mac>`, the mac
 * an HMAC (with ROOST_SECRETS) of the three fields, so a leaked id (it
 * travels in the Mcp-Name header too) reads and cancels one task and
 * nothing else of the session. Revoking the session's act tokens issued
 * before a time revokes the ids issued before it alike.
 */

import type { SigningKeys } from "../../http/secrets";
import { signToken, verifyToken } from "../../http/token";
import type { Grant } from "../../protocol/scopes";

// A domain of its own, so no other signed kind can pass for one.
const signed = (sessionId: string, taskId: string, issuedAt: number) =>
  `task:${sessionId}:${taskId}:${issuedAt}`;

export const carryTask = async (
  keys: SigningKeys,
  sessionId: string,
  taskId: string,
  issuedAt: number
): Promise<string> =>
  `${sessionId}~${taskId}~${issuedAt.toString(36)}~${await signToken(keys, signed(sessionId, taskId, issuedAt))}`;

/** The session and task a carried id proves, with the grant it holds; `undefined` when it proves nothing. */
export const provenTask = async (
  keys: SigningKeys,
  carried: string
): Promise<{ sessionId: string; taskId: string; grant: Grant } | undefined> => {
  const [sessionId, taskId, issued, mac, ...rest] = carried.split("~");
  if (
    rest.length > 0 ||
    sessionId === undefined ||
    taskId === undefined ||
    issued === undefined ||
    mac === undefined ||
    !/^[0-9a-z]{1,12}$/.test(issued)
  )
    return undefined;
  const issuedAt = Number.parseInt(issued, 36);
  const ok = await verifyToken(keys, signed(sessionId, taskId, issuedAt), mac);
  // Act, as the call that started it: its task can be cancelled.
  return ok
    ? { sessionId, taskId, grant: { scope: "act", issuedAt } }
    : undefined;
};
