/** @module Session tokens: `v1.<kid>.<base64url(HMAC-SHA256(secret[kid], session_id))>`. */

import type { SigningKeys } from "./secrets";

const VERSION = "v1";
const encoder = new TextEncoder();

export const toBase64Url = (bytes: ArrayBuffer | Uint8Array): string => {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

export const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
};

/** Text from the base64url of its UTF-8; undefined when it is not both. */
export const textFromBase64Url = (text: string): string | undefined => {
  const bytes = fromBase64Url(text);
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      bytes
    );
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

/** Verified tokens remembered per isolate, per set of keys. */
const VERIFIED_MAX = 4096;
const verified = new WeakMap<SigningKeys, Map<string, string>>();

/**
 * Checks a token against a session id with any listed key. Malformed
 * tokens, unknown kids and wrong signatures are all just `false`: the
 * caller answers them alike. `crypto.subtle.verify` compares in constant time.
 *
 * A client sends the same token on every request, and the HMAC check was
 * about a tenth of a step's CPU; so a token that verified is remembered
 * (bounded, oldest forgotten first) with the keys that verified it. A change
 * of ROOST_SECRETS makes new keys and so starts an empty memory. Only
 * successes are kept, so a wrong token is always checked in full.
 */
export const verifyToken = async (
  keys: SigningKeys,
  sessionId: string,
  token: string
): Promise<boolean> => {
  let memory = verified.get(keys);
  if (memory?.get(token) === sessionId) return true;
  const ok = await verifyMac(keys, sessionId, token);
  if (ok) {
    if (memory === undefined) {
      memory = new Map();
      verified.set(keys, memory);
    }
    if (memory.size >= VERIFIED_MAX) {
      memory.delete(memory.keys().next().value as string);
    }
    memory.set(token, sessionId);
  }
  return ok;
};

/**
 * The check itself, remembering nothing: for values presented once (an
 * authorization code, a consent form, a refresh token), whose messages may
 * be kilobytes and which anyone can mint; remembered, they would push the
 * session tokens a client sends on every request out of the memory.
 */
export const verifyMac = async (
  keys: SigningKeys,
  message: string,
  token: string
): Promise<boolean> => {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) return false;
  const key = keys.byKid.get(parts[1]!);
  const mac = fromBase64Url(parts[2]!);
  if (key === undefined || mac === undefined) return false;
  return crypto.subtle.verify("HMAC", key, mac, encoder.encode(message));
};
