/** @module WebSocket subprotocols: how a browser, which cannot set headers, sends its token. */

/** Echoed by the server, also when refusing, or browsers fail the handshake unseen. */
export const SUBPROTOCOL = "roost.v1";

/** `roost.token.<token>`: tokens are `v1.<kid>.<base64url>`, valid subprotocol characters. */
export const TOKEN_SUBPROTOCOL_PREFIX = "roost.token.";

/**
 * What a client offers in `Sec-WebSocket-Protocol`.
 *
 * @example
 * new WebSocket(url, subprotocolsFor(token));
 */
export const subprotocolsFor = (token: string): string[] => [
  SUBPROTOCOL,
  `${TOKEN_SUBPROTOCOL_PREFIX}${token}`
];

/** The token in a `Sec-WebSocket-Protocol` header, if one is offered. */
export const tokenFromSubprotocols = (
  header: string | null | undefined
): string | undefined => {
  for (const offered of (header ?? "").split(",")) {
    const value = offered.trim();
    if (
      value.startsWith(TOKEN_SUBPROTOCOL_PREFIX) &&
      value.length > TOKEN_SUBPROTOCOL_PREFIX.length
    ) {
      return value.slice(TOKEN_SUBPROTOCOL_PREFIX.length);
    }
  }
  return undefined;
};
