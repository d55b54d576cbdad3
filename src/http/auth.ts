/** @module Credentials: session tokens and API keys, checked before any Durable Object is touched. */

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { RoostError } from "../errors";
import type { Grant } from "../protocol/scopes";
import { staleError } from "../session/operations/check-grant";
import { apiKeysConfigured, isApiKey } from "./api-keys";
import type { AppEnv } from "./env";
import { isExpired, isSessionToken, verifySessionToken } from "./scoped-token";
import { signingKeys } from "./secrets";

// One message for every wrong credential, so the answer reveals nothing
// about whether the session, the kid or the key exists.
const FORBIDDEN = "These credentials do not admit to this resource.";

const forbidden = () => new RoostError("forbidden", FORBIDDEN);

/** The bearer credential, `undefined` when none was sent, `null` when the header is not a bearer credential. */
const bearer = (header: string | undefined): string | null | undefined => {
  if (header === undefined || header.trim() === "") return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
};

/** Aviary's client sends its `api_key` as this header; every route takes a key there. */
export const API_KEY_HEADER = "X-API-Key";

/**
 * The request's credential: an API key in X-API-Key (Aviary's client
 * sends nothing else), or a session token or key as Authorization: Bearer.
 * One rule for every route, so a key works wherever it is presented.
 */
const requireCredential = (c: Context<AppEnv>): string => {
  const key = c.req.header(API_KEY_HEADER)?.trim();
  if (key) return key;
  const credential = bearer(c.req.header("Authorization"));
  if (credential === undefined) {
    throw new RoostError(
      "unauthorized",
      `Send credentials as Authorization: Bearer <session token or API key>, or an API key as ${API_KEY_HEADER}.`
    );
  }
  if (credential === null) throw forbidden();
  return credential;
};

/**
 * What a layer's access token grants (the worker's layers' checks, in
 * order), marking the request `oauth`; `undefined` when it is none.
 */
const layerAccess = async (
  c: Context<AppEnv>,
  credential: string
): Promise<Grant | undefined> => {
  for (const check of c.get("accessTokens")) {
    const grant = await check(c, credential);
    if (grant !== undefined) {
      c.set("oauth", true);
      return grant;
    }
  }
  return undefined;
};

/** What an API key grants: everything a session's first token does, on any session. */
const API_KEY_GRANT: Grant = { scope: "control", issuedAt: 0, apiKey: true };

/**
 * Guards `/v1/sessions/:id` and everything below it. A session token must
 * be signed for this id; an API key admits to any session. The id is
 * parsed last and a rejected id is `forbidden` too, so a garbage id, a
 * stranger's token and a missing session look the same to a guesser.
 */
export const sessionAuth = createMiddleware<AppEnv>(async (c, next) => {
  const admitted = await admit(c, requireCredential(c));
  if (admitted === undefined) throw forbidden();
  c.set("sessionId", admitted.sessionId);
  c.set("durableId", admitted.durableId);
  c.set("grant", admitted.grant);
  await next();
});

/**
 * What `credential` grants on the session in the path: its token's scope,
 * or an API key's control. `undefined` for every kind of refusal alike,
 * but an expired token of this session, which is told so (401).
 */
export const admit = async (
  c: Context<AppEnv>,
  credential: string
): Promise<
  { sessionId: string; durableId: DurableObjectId; grant: Grant } | undefined
> => {
  const keys = await signingKeys(c.env);
  const sessionId = c.req.param("id") ?? "";
  // A layer's access token (OAuth's is bound to one MCP endpoint's URL,
  // which names the session): checked against the request's own URL, so
  // no other session or route admits it.
  const layered = await layerAccess(c, credential);
  if (layered !== undefined) {
    return {
      sessionId,
      durableId: c.env.SESSIONS.idFromString(sessionId),
      grant: layered
    };
  }
  // An API key may happen to look like a token, so a failed token check
  // still tries the keys.
  const grant =
    (isSessionToken(credential)
      ? await verifySessionToken(keys, sessionId, credential)
      : undefined) ??
    ((await isApiKey(c.env, credential)) ? API_KEY_GRANT : undefined);
  if (grant === undefined) return undefined;
  if (isExpired(grant, Date.now())) throw staleError("expired");
  try {
    return {
      sessionId,
      durableId: c.env.SESSIONS.idFromString(sessionId),
      grant
    };
  } catch {
    return undefined;
  }
};

/**
 * Guards `POST /v1/sessions`: open unless ROOST_API_KEYS is set. It needs
 * the signing keys either way, because the answer carries a new token.
 */
export const createAuth = createMiddleware<AppEnv>(async (c, next) => {
  await signingKeys(c.env);
  // An OAuth token is checked wherever it is sent, keys or not: it admits
  // only to the environment MCP endpoint it was issued for, and the
  // session made there is handed to it with act alone (layers/mcp/session-token.ts).
  const sent = bearer(c.req.header("Authorization"));
  if (sent && (await layerAccess(c, sent)) !== undefined) return await next();
  if (apiKeysConfigured(c.env)) {
    if (!(await isApiKey(c.env, requireCredential(c)))) throw forbidden();
  }
  await next();
});

/** Aviary's routes: guarded as creation is (they make sessions). */
export const apiKeyHeaderAuth = createAuth;
