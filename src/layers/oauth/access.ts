/**
 * @module OAuth access tokens: Roost's own scoped credential, bound to one
 * MCP endpoint. `mcp.<approved ms, base 36>.<expiry s>.v1.<kid>.<mac>`,
 * the mac an HMAC of the endpoint's URL with the two times, so the worker
 * checks one without storage and a token presented at another URL (another
 * environment's, another session's, a route that is no MCP endpoint) fails.
 * It always grants `act`. Its time is the approval's, kept through every
 * refresh, so a session revoking `act` refuses every token of that chain.
 */

import type { Context } from "hono";
import { RoostError } from "../../errors";
import { isApiKey } from "../../http/api-keys";
import type { AppEnv } from "../../http/env";
import { isExpired } from "../../http/scoped-token";
import { type SigningKeys, signingKeys } from "../../http/secrets";
import { signToken, verifyToken } from "../../http/token";
import type { Grant } from "../../protocol/scopes";
import { type McpResource, requestResource } from "./resource";
import { OAUTH_SCOPE, oauthEnabled } from "./settings";

const ACCESS_TOKEN =
  /^mcp\.([0-9a-z]{1,11})\.(\d{1,12})\.(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

const signed = (resource: string, approvedAt: number, expiresAt: number) =>
  `oauth-access:${resource}:${OAUTH_SCOPE}:${approvedAt}:${expiresAt}`;

export const signAccessToken = async (
  keys: SigningKeys,
  resource: string,
  approvedAt: number,
  expiresAt: number
): Promise<string> =>
  `mcp.${approvedAt.toString(36)}.${expiresAt}.${await signToken(keys, signed(resource, approvedAt, expiresAt))}`;

/**
 * What an OAuth access token grants on the endpoint the request is for.
 * `undefined` when `credential` is no access token (or OAuth is off, or it
 * is an API key that looks like one), for the caller's own checks. A token
 * at a route that is no MCP endpoint is refused 403, as any credential
 * beyond its reach; at an MCP endpoint it was not issued for, or expired,
 * 401, so an OAuth client asks for a new one.
 */
export const oauthAccess = async (
  c: Context<AppEnv>,
  credential: string
): Promise<{ grant: Grant; resource: McpResource } | undefined> => {
  if (!oauthEnabled(c.env)) return undefined;
  const match = ACCESS_TOKEN.exec(credential);
  if (match === null || (await isApiKey(c.env, credential))) return undefined;
  const resource = requestResource(c.req.url);
  if (resource === undefined)
    throw new RoostError(
      "forbidden",
      "An OAuth access token admits to the MCP endpoint it was issued for, and nothing else."
    );
  const approvedAt = Number.parseInt(match[1]!, 36);
  const expiresAt = Number(match[2]);
  const genuine = await verifyToken(
    await signingKeys(c.env),
    signed(resource.uri, approvedAt, expiresAt),
    match[3]!
  );
  if (!genuine)
    throw new RoostError(
      "unauthorized",
      "This access token was not issued for this MCP endpoint: authorize for it."
    );
  const grant: Grant = { scope: OAUTH_SCOPE, issuedAt: approvedAt, expiresAt };
  if (isExpired(grant, Date.now()))
    throw new RoostError(
      "unauthorized",
      "This access token has expired: refresh it or authorize again."
    );
  return { grant, resource };
};
