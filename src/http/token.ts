/** @module Session tokens: `v1.<kid>.<base64url(HMAC-SHA256(secret[kid], session_id))>`. */

import type { SigningKeys } from "./secrets";

const VERSION = "v1";
const encoder = new TextEncoder();

const toBase64Url = (bytes: ArrayBuffer): string => {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
};

/** Signs a session id with the first key. */
export const signToken = async (
  keys: SigningKeys,
  sessionId: string
): Promise<string> => {
  const mac = await crypto.subtle.sign(
    "HMAC",
    keys.signer.key,
    encoder.encode(sessionId)
  );
  return `${VERSION}.${keys.signer.kid}.${toBase64Url(mac)}`;
};

/** Whether `credential` looks like a session token at all (rather than an API key). */
export const isTokenShaped = (credential: string): boolean =>
  credential.startsWith(`${VERSION}.`);

/**
 * Checks a token against a session id with any listed key. Malformed
 * tokens, unknown kids and wrong signatures are all just `false`: the
 * caller answers them alike. `crypto.subtle.verify` compares in constant time.
 */
export const verifyToken = async (
  keys: SigningKeys,
  sessionId: string,
  token: string
): Promise<boolean> => {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) return false;
  const key = keys.byKid.get(parts[1]!);
  const mac = fromBase64Url(parts[2]!);
  if (key === undefined || mac === undefined) return false;
  return crypto.subtle.verify("HMAC", key, mac, encoder.encode(sessionId));
};
