/**
 * @module What a socket's grant means over its life: closed with 4401 once
 * it expires or its scope is revoked, and sent nothing from then on.
 */

import { CLOSE_CODES } from "../protocol";
import type { Grant, Scope } from "../protocol/scopes";
import { staleGrant } from "./operations/check-grant";
import type { SessionShared } from "./shared";

/**
 * A socket whose token expires this soon gets a timer that closes it on
 * time; a later expiry is caught by the next frame or event (a socket is
 * sent nothing once stale), so a long-lived token keeps no timer that
 * would hold a hibernating object awake.
 */
const EXPIRY_TIMER_MS = 10 * 60_000;

export const closeSocket = (
  ws: WebSocket,
  code: number,
  reason: string
): void => {
  try {
    ws.close(code, reason);
  } catch {
    // already closing
  }
};

/** Closes `ws` with 4401 if `grant` expired or was revoked; whether it did. */
export const closeIfStale = (
  shared: SessionShared,
  ws: WebSocket,
  grant: Grant
): boolean => {
  const stale = staleGrant(shared, grant);
  if (stale === undefined) return false;
  closeSocket(ws, CLOSE_CODES.unauthorized, `This token was ${stale}.`);
  return true;
};

/** Closes `ws` when `grant` expires, if that is soon (see EXPIRY_TIMER_MS). */
export const armExpiry = (
  shared: SessionShared,
  ws: WebSocket,
  grant: Grant
): void => {
  if (grant.expiresAt === undefined) return;
  const wait = grant.expiresAt * 1000 - shared.now();
  if (wait > EXPIRY_TIMER_MS) return;
  setTimeout(() => closeIfStale(shared, ws, grant), Math.max(0, wait) + 1);
};

/** Whether revoking `scope` before `before` reaches a socket opened with `grant`. */
export const isRevokedBy = (
  grant: Grant | undefined,
  scope: Scope,
  before: number
): boolean =>
  grant?.scope === scope && grant.apiKey !== true && grant.issuedAt < before;
