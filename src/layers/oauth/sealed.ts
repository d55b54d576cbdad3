/**
 * @module Signed JSON for what OAuth hands a client to give back: client
 * ids, authorization codes and refresh tokens. `<base64url JSON>.v1.<kid>.<mac>`,
 * the mac an HMAC over a domain and the JSON with the deployment's signing
 * keys, so nothing is stored to check one and rotating ROOST_SECRETS works
 * as for session tokens. The JSON is readable by its holder: it holds
 * nothing secret.
 */

import type * as z from "zod";
import type { SigningKeys } from "../../http/secrets";
import { signToken, verifyMac } from "../../http/token";

export type SealDomain = "client" | "code" | "refresh" | "consent";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const toBase64Url = (text: string): string => {
  let binary = "";
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

const fromBase64Url = (text: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
};

export const seal = async (
  keys: SigningKeys,
  domain: SealDomain,
  value: object
): Promise<string> => {
  const body = toBase64Url(JSON.stringify(value));
  return `${body}.${await signToken(keys, `oauth-${domain}:${body}`)}`;
};

/** The value `sealed` carries, if it is genuine, of `domain`, and fits `schema`. */
export const unseal = async <T>(
  keys: SigningKeys,
  domain: SealDomain,
  sealed: string,
  schema: z.ZodType<T>
): Promise<T | undefined> => {
  const dot = sealed.indexOf(".");
  if (dot <= 0 || sealed.length > 8192) return undefined;
  const body = sealed.slice(0, dot);
  if (
    !(await verifyMac(keys, `oauth-${domain}:${body}`, sealed.slice(dot + 1)))
  )
    return undefined;
  const json = fromBase64Url(body);
  if (json === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};
