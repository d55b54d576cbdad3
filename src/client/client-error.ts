/** @module The error the client's requests and sockets throw: the server's `{error}` body, or what went wrong on the way. */

import type { ErrorCode } from "../errors";

/**
 * Codes of failures the server never answered: `network_error` (no
 * response after retries), `invalid_response` (a body that is not the
 * documented shape), `disconnected` (a socket closed before the reply came),
 * `closed` (the caller closed the socket), `inconsistent_pages` (the pages
 * of one read do not join up: an entry's parts with a gap, a cursor that
 * does not move on — the session changed between two pages, or the server
 * broke the paging contract; read again from the start).
 */
export type ClientErrorCode =
  | "network_error"
  | "invalid_response"
  | "disconnected"
  | "closed"
  | "inconsistent_pages";

/**
 * Thrown by every client call. `code` and `details` are the server's
 * (`details` names the bad fields of a 400); `status` is the HTTP status,
 * or 0 when there was none (network errors, WebSocket replies).
 *
 * @example
 * try { await session.step(action); }
 * catch (e) { if (e instanceof RoostClientError && e.code === "episode_not_running") … }
 */
export class RoostClientError extends Error {
  constructor(
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly status = 0,
    readonly details?: unknown
  ) {
    super(message);
    this.name = "RoostClientError";
  }
}
