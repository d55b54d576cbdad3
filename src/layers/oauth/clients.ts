/**
 * @module Registered clients (RFC 7591). Nothing is stored: the client_id
 * is the client's metadata sealed (sealed.ts), so registration cannot fill
 * storage and a client_id nobody signed is refused. Every client is public
 * (no secret; PKCE is what binds a code to its client), as hosted MCP
 * clients and local apps are. Client ID Metadata Documents are not
 * accepted: they need an outbound fetch of a URL the client names, on the
 * authorization path, and DCR serves the same clients.
 */

import { listSetting } from "../../http/env";
import type { SigningKeys } from "../../http/secrets";
import { type Client, ClientSchema } from "./schemas";
import { seal, unseal } from "./sealed";

const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\])$/;

// Schemes that would run or read something in the browser the redirect lands in.
const UNSAFE_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "blob:",
  "vbscript:",
  "about:",
  "ws:",
  "wss:",
  "ftp:"
]);

/**
 * Why `uri` cannot be a redirect URI, or `undefined` if it can: https; http
 * to a loopback host only (a local app's listener, RFC 8252); or an app's
 * own scheme. Never a fragment.
 */
export const redirectUriProblem = (uri: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri.slice(0, 100))} is not an absolute URI.`;
  }
  if (uri.includes("#")) return "A redirect URI may not have a fragment.";
  if (UNSAFE_SCHEMES.has(url.protocol))
    return `A redirect URI may not use ${url.protocol}`;
  if (url.protocol === "http:" && !LOOPBACK.test(url.hostname))
    return "An http redirect URI must be to a loopback host (127.0.0.1, [::1] or localhost); use https otherwise.";
  return undefined;
};

/**
 * Whether `uri` is one of the client's: exactly, except that a loopback
 * http URI may name any port (RFC 8252 §7.3: a local app listens where it
 * can).
 */
export const redirectAllowed = (client: Client, uri: string): boolean =>
  client.r.some((registered) => {
    if (registered === uri) return true;
    if (!registered.startsWith("http:")) return false;
    try {
      const a = new URL(registered);
      const b = new URL(uri);
      if (b.protocol !== "http:" || !LOOPBACK.test(a.hostname)) return false;
      a.port = "";
      b.port = "";
      return a.href === b.href;
    } catch {
      return false;
    }
  });

export const randomId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
};

export const registerClient = (
  keys: SigningKeys,
  redirectUris: string[],
  name: string | undefined
): Promise<string> =>
  seal(keys, "client", {
    i: randomId(),
    r: redirectUris,
    ...(name ? { n: name } : {})
  } satisfies Client);

export const clientOf = (
  keys: SigningKeys,
  clientId: string
): Promise<Client | undefined> =>
  unseal(keys, "client", clientId, ClientSchema());

/** A short digest of an API key: a chain it approved lives while the key is listed. */
export const keyDigest = async (key: string): Promise<string> => {
  const hash = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`oauth-key:${key}`)
  );
  return Array.from(new Uint8Array(hash).slice(0, 12), (b) =>
    b.toString(16).padStart(2, "0")
  ).join("");
};

export const keyStillListed = async (
  setting: string | undefined,
  digest: string
): Promise<boolean> => {
  for (const key of listSetting(setting))
    if ((await keyDigest(key)) === digest) return true;
  return false;
};
