/**
 * @module The token endpoint: an authorization code (with its PKCE
 * verifier) or a refresh token for an access token and a new refresh
 * token. Codes and refresh tokens are single use (ledger.ts): a second
 * use is refused and revokes every refresh token of the grant, and a
 * verifier that does not match the challenge is refused.
 */

import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import { type SigningKeys, signingKeys } from "../../http/secrets";
import { signAccessToken } from "./access";
import { clientOf, keyStillListed, randomId } from "./clients";
import { redeem } from "./ledger";
import { mcpResource } from "./resource";
import { type Approved, ApprovedSchema, TokenRequestSchema } from "./schemas";
import { seal, unseal } from "./sealed";
import { OAUTH_SCOPE, TTL_S } from "./settings";
import { firstIssue, oauthError, oauthJson, readForm } from "./wire";

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const s256 = async (verifier: string): Promise<string> => {
  const hash = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier)
  );
  let binary = "";
  for (const byte of new Uint8Array(hash)) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

const invalidGrant = (why: string) => oauthError("invalid_grant", why);

/** The grant a code or refresh token belongs to: a code's is its own id. */
const familyOf = (approved: Approved): string => approved.f ?? approved.j;

/** An access token and the next refresh token of the chain `approved` starts or continues. */
const issue = async (
  keys: SigningKeys,
  approved: Approved
): Promise<Response> => {
  const now = Math.floor(Date.now() / 1000);
  const cap = approved.k === 0 ? Number.POSITIVE_INFINITY : approved.k;
  const expiresAt = Math.min(now + TTL_S.access, cap);
  if (expiresAt <= now)
    return invalidGrant("The session token that approved this has expired.");
  const refresh: Approved = {
    i: approved.i,
    r: approved.r,
    a: approved.a,
    k: approved.k,
    ...(approved.d === undefined ? {} : { d: approved.d }),
    f: familyOf(approved),
    j: randomId(),
    x: Math.min(now + TTL_S.refresh, cap)
  };
  return oauthJson({
    access_token: await signAccessToken(
      keys,
      approved.r,
      approved.a,
      expiresAt
    ),
    token_type: "Bearer",
    expires_in: expiresAt - now,
    scope: OAUTH_SCOPE,
    refresh_token: await seal(keys, "refresh", refresh)
  });
};

export const token = async (c: Context<AppEnv>): Promise<Response> => {
  const form = await readForm(c);
  if (form instanceof Response) return form;
  if (
    form.grant_type !== "authorization_code" &&
    form.grant_type !== "refresh_token"
  )
    return oauthError(
      "unsupported_grant_type",
      "grant_type must be authorization_code or refresh_token."
    );
  const parsed = TokenRequestSchema().safeParse(form);
  if (!parsed.success)
    return oauthError("invalid_request", firstIssue(parsed.error));
  const request = parsed.data;
  const keys = await signingKeys(c.env);
  const client = await clientOf(keys, request.client_id);
  if (client === undefined)
    return oauthError(
      "invalid_client",
      "Unknown client_id: register first.",
      401
    );
  const nowMs = Date.now();
  const sealed =
    request.grant_type === "authorization_code"
      ? request.code
      : request.refresh_token;
  const domain =
    request.grant_type === "authorization_code" ? "code" : "refresh";
  const grant = await unseal(keys, domain, sealed, ApprovedSchema());
  if (grant === undefined || grant.x * 1000 <= nowMs || grant.i !== client.i)
    return invalidGrant(
      `This ${domain === "code" ? "authorization code" : "refresh token"} is not valid (expired, not genuine, or another client's).`
    );
  if (
    request.resource !== undefined &&
    mcpResource(request.resource)?.uri !== grant.r
  )
    return oauthError(
      "invalid_target",
      "resource is not the one this grant was approved for."
    );
  if (request.grant_type === "authorization_code") {
    if (grant.u !== request.redirect_uri)
      return invalidGrant("redirect_uri is not the one the code was sent to.");
    if (
      !VERIFIER.test(request.code_verifier) ||
      (await s256(request.code_verifier)) !== grant.h
    )
      return invalidGrant("code_verifier does not match the code_challenge.");
  } else {
    const scopes = (request.scope ?? "").split(" ").filter((s) => s !== "");
    if (scopes.some((s) => s !== OAUTH_SCOPE))
      return oauthError("invalid_scope", `The only scope is ${OAUTH_SCOPE}.`);
    if (
      grant.d !== undefined &&
      !(await keyStillListed(c.env.ROOST_API_KEYS, grant.d))
    )
      return invalidGrant(
        "The API key that approved this is no longer listed."
      );
  }
  // Last, so a request refused above does not use the code up.
  const what = domain === "code" ? "authorization code" : "refresh token";
  const redeemed = await redeem(
    c.env,
    `${domain}:${grant.j}`,
    familyOf(grant),
    grant.x * 1000,
    // Every token of the grant has expired by then: the newest refresh
    // token was issued before now, for TTL_S.refresh at most.
    nowMs + TTL_S.refresh * 1000
  );
  if (redeemed === "reused")
    return invalidGrant(
      `This ${what} was already used. A copy may have been stolen, so every refresh token of its grant is revoked: authorize again.`
    );
  if (redeemed === "revoked")
    return invalidGrant(
      `This ${what}'s grant was revoked: one of its codes or refresh tokens was used twice. Authorize again.`
    );
  return await issue(keys, grant);
};
