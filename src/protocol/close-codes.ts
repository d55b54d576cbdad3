/** @module WebSocket close codes. A client never reconnects after a 44xx close: retrying cannot help. */

export const CLOSE_CODES = {
  /** A request the socket cannot act on, said first in a `protocol.error` (a bad `?after=`). */
  invalid_request: 4400,
  /** No or malformed credentials. */
  unauthorized: 4401,
  /** Wrong credentials, or a session id the platform rejects. */
  forbidden: 4403,
  /** The session was deleted or expired. */
  session_gone: 4404,
  /** The socket's backlog grew past its limit. */
  slow_reader: 4408,
  /** A frame over the size limit that could not be answered in band. */
  frame_too_large: 4413
} as const;

export type CloseCodeName = keyof typeof CLOSE_CODES;
export type CloseCode = (typeof CLOSE_CODES)[CloseCodeName];

/**
 * Whether a close means "do not reconnect". 44xx mirrors the HTTP 4xx the
 * same failure would get: the request itself is wrong, so retrying is futile.
 */
export const isTerminalCloseCode = (code: number): boolean =>
  code >= 4400 && code <= 4499;

/**
 * The code to answer a peer's close with: its own when that code may be
 * sent, else 1000. A `close()` without a code arrives as 1005, which (like
 * 1004, 1006, 1015 and 1016–2999) only reports what happened and may never be
 * sent (RFC 6455 §7.4). Echoing 1005 made the platform drop the reply, so
 * the client waited ~10 s for a close frame and ended with 1006.
 */
export const closeReplyCode = (code: number): number =>
  (code >= 1000 && code <= 1003) ||
  (code >= 1007 && code <= 1014) ||
  (code >= 3000 && code <= 4999)
    ? code
    : 1000;
