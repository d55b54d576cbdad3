/** @module WebSocket close codes. A client never reconnects after a 44xx close: retrying cannot help. */

export const CLOSE_CODES = {
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
