/** @module Credentials: session tokens and API keys, checked before any Durable Object is touched. */

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { RoostError } from "../errors";
import { apiKeysConfigured, isApiKey } from "./api-keys";
import type { AppEnv } from "./env";
import { signingKeys } from "./secrets";
import { isTokenShaped, verifyToken } from "./token";

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

const requireCredential = (header: string | undefined): string => {
  const credential = bearer(header);
  if (credential === undefined) {
    throw new RoostError(
      "unauthorized",
      "Send credentials as Authorization: Bearer <session token or API key>."
    );
  }
  if (credential === null) throw forbidden();
  return credential;
};

/**
 * Guards `/v1/sessions/:id` and everything below it. A session token must
 * be signed for this id; an API key admits to any session. The id is
 * parsed last and a rejected id is `forbidden` too, so a garbage id, a
 * stranger's token and a missing session look the same to a guesser.
 */
export const sessionAuth = createMiddleware<AppEnv>(async (c, next) => {
  const credential = requireCredential(c.req.header("Authorization"));
  const admitted = await admit(c, credential);
  if (admitted === undefined) throw forbidden();
  c.set("sessionId", admitted.sessionId);
  c.set("durableId", admitted.durableId);
  await next();
});

/**
 * Whether `credential` admits to the session in the path: its token, or
 * an API key. `undefined` for every kind of refusal alike.
 */
export const admit = async (
  c: Context<AppEnv>,
  credential: string
): Promise<{ sessionId: string; durableId: DurableObjectId } | undefined> => {
  const keys = await signingKeys(c.env);
  const sessionId = c.req.param("id") ?? "";
  // An API key may happen to look like a token, so a failed token check
  // still tries the keys.
  const admitted =
    (isTokenShaped(credential) &&
      (await verifyToken(keys, sessionId, credential))) ||
    (await isApiKey(c.env, credential));
  if (!admitted) return undefined;
  try {
    return { sessionId, durableId: c.env.SESSIONS.idFromString(sessionId) };
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
  if (apiKeysConfigured(c.env)) {
    const credential = requireCredential(c.req.header("Authorization"));
    if (!(await isApiKey(c.env, credential))) throw forbidden();
  }
  await next();
});

/** Aviary's client sends its `api_key` as this header, never as Authorization. */
export const API_KEY_HEADER = "X-API-Key";

/**
 * Guards Aviary's routes as `createAuth` guards creation, reading the key
 * from X-API-Key (or, for other clients, Authorization: Bearer).
 */
export const apiKeyHeaderAuth = createMiddleware<AppEnv>(async (c, next) => {
  await signingKeys(c.env);
  if (apiKeysConfigured(c.env)) {
    const header = c.req.header(API_KEY_HEADER)?.trim();
    const credential = header
      ? header
      : c.req.header("Authorization") === undefined
        ? undefined
        : requireCredential(c.req.header("Authorization"));
    if (credential === undefined) {
      throw new RoostError(
        "unauthorized",
        `Send the API key as ${API_KEY_HEADER} (Aviary's api_key) or as Authorization: Bearer <key>.`
      );
    }
    if (!(await isApiKey(c.env, credential))) throw forbidden();
  }
  await next();
});
