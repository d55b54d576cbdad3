/**
 * @module Scoped session tokens: `<scope>.<issued ms, base 36>.<expiry s or
 * 0>.v1.<kid>.<mac>`, the mac an HMAC of the session id with the three
 * fields. A session's first token (`v1.<kid>.<mac>` over the bare id)
 * stays what it always was and means `control`, issued at 0, never
 * expiring: every client holding one keeps working.
 */

import {
  type Grant,
  isScope,
  SCOPED_TOKEN,
  type Scope
} from "../protocol/scopes";
import type { SigningKeys } from "./secrets";
import { isTokenShaped, signToken, verifyToken } from "./token";

// A domain of its own: the first token signs a bare 64-hex id and OpenEnv's
// credentials start "openenv:", so no kind can pass for another.
const signed = (sessionId: string, g: Grant): string =>
  `scope:${sessionId}:${scopeOf(g)}:${g.issuedAt}:${g.expiresAt ?? 0}`;

// `~` is in no scope's name, so "act~x" can pass for no other scope.
const scopeOf = (g: { scope: Scope; agent?: string }): string =>
  g.agent === undefined ? g.scope : `${g.scope}~${g.agent}`;

/** Signs a token for `sessionId` carrying `grant`'s scope, time and expiry. */
export const signScopedToken = async (
  keys: SigningKeys,
  sessionId: string,
  grant: { scope: Scope; issuedAt: number; expiresAt?: number; agent?: string }
): Promise<string> =>
  `${scopeOf(grant)}.${grant.issuedAt.toString(36)}.${grant.expiresAt ?? 0}.${await signToken(keys, signed(sessionId, grant))}`;

/** Whether `grant` is past its expiry at `nowMs`. */
export const isExpired = (grant: Grant, nowMs: number): boolean =>
  grant.expiresAt !== undefined && grant.expiresAt * 1000 <= nowMs;

/** Whether `credential` is a session token of either kind (rather than an API key). */
export const isSessionToken = (credential: string): boolean =>
  isTokenShaped(credential) || SCOPED_TOKEN.test(credential);

/**
 * The grant `token` carries for `sessionId`, or `undefined` for a token
 * that is malformed, forged or another session's: the caller answers all
 * of them alike. An expired token's grant is answered (its expiry is
 * genuine), for the caller to refuse saying why.
 */
export const verifySessionToken = async (
  keys: SigningKeys,
  sessionId: string,
  token: string
): Promise<Grant | undefined> => {
  if (isTokenShaped(token))
    return (await verifyToken(keys, sessionId, token))
      ? { scope: "control", issuedAt: 0 }
      : undefined;
  const match = SCOPED_TOKEN.exec(token);
  if (match === null || !isScope(match[1]!)) return undefined;
  const expiresAt = Number(match[4]);
  const grant: Grant = {
    scope: match[1],
    issuedAt: Number.parseInt(match[3]!, 36),
    ...(expiresAt === 0 ? {} : { expiresAt }),
    ...(match[2] === undefined ? {} : { agent: match[2] })
  };
  return (await verifyToken(keys, signed(sessionId, grant), match[5]!))
    ? grant
    : undefined;
};
