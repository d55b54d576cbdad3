/** @module WebSocket subprotocols: how a browser, which cannot set headers, sends its token. */

/** Selected by the server whenever the client offers it, also when refusing. */
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

/**
 * The protocol the server selects from the client's offer, or none.
 *
 * RFC 6455 §4.2.2 lets a server select only a protocol the client offered,
 * and clients fail the handshake otherwise (`ws`: "Server sent a subprotocol
 * but none was requested"; browsers likewise). Conversely `ws` fails a
 * handshake that offered protocols and got none back. So: `roost.v1` when
 * offered; else the offered token protocol itself when that is all a client
 * knows to send (it echoes only the caller's own credential back to it);
 * else nothing (`?token=` clients offer no protocol).
 */
export const selectSubprotocol = (
  header: string | null | undefined
): string | undefined => {
  const offered = (header ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (offered.includes(SUBPROTOCOL)) return SUBPROTOCOL;
  return offered.find((p) => p.startsWith(TOKEN_SUBPROTOCOL_PREFIX));
};

/** The handshake headers that select the offered protocol, if any. */
export const subprotocolHeaders = (
  request: Request
): Record<string, string> => {
  const selected = selectSubprotocol(
    request.headers.get("Sec-WebSocket-Protocol")
  );
  return selected === undefined ? {} : { "Sec-WebSocket-Protocol": selected };
};
