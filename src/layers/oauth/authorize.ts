/**
 * @module The authorization endpoint: GET shows the consent page, POST is
 * its answer. Who approves: where ROOST_API_KEYS is set, whoever types one
 * of its keys; for a session's endpoint, whoever holds that session's
 * token (one that may act) or a key; with no keys (development), whoever
 * clicks Allow on a page the Origin guard keeps to this server's own
 * origin. The form carries the request sealed with a nonce that a cookie
 * of this origin repeats, so a form posted from anywhere else fails.
 */

import type { Context } from "hono";
import { RoostError } from "../../errors";
import { apiKeysConfigured, isApiKey } from "../../http/api-keys";
import type { AppEnv } from "../../http/env";
import { gatewayTo } from "../../http/gateway";
import { isExpired, verifySessionToken } from "../../http/scoped-token";
import { signingKeys } from "../../http/secrets";
import { allows } from "../../protocol/scopes";
import { clientOf, keyDigest, randomId, redirectAllowed } from "./clients";
import { type ConsentView, consentPage, errorPage } from "./consent-page";
import { type McpResource, mcpResource } from "./resource";
import {
  type Approved,
  AuthorizeSchema,
  ClientPartSchema,
  ConsentFormSchema,
  type Pending,
  PendingSchema
} from "./schemas";
import { seal, unseal } from "./sealed";
import { OAUTH_SCOPE, TTL_S } from "./settings";
import { firstIssue, readForm, redirectBack } from "./wire";

const COOKIE = "roost_oauth_consent";

const nowS = () => Math.floor(Date.now() / 1000);

/** The resource a request names, if it is an MCP endpoint of this server that exists or may. */
const resourceHere = (
  c: Context<AppEnv>,
  value: string
): McpResource | undefined => {
  const resource = mcpResource(value);
  if (resource?.uri.startsWith(`${new URL(c.req.url).origin}/`) !== true)
    return undefined;
  if (resource.kind === "environment")
    return c.get("registry").has(resource.name) ? resource : undefined;
  try {
    c.env.SESSIONS.idFromString(resource.name);
    return resource;
  } catch {
    return undefined;
  }
};

const view = (
  c: Context<AppEnv>,
  pending: Pending,
  consent: string,
  error?: string
): ConsentView => {
  const resource = mcpResource(pending.r)!;
  const returns = new URL(pending.u);
  return {
    clientName: pending.n,
    returnsTo:
      returns.origin === "null"
        ? `${returns.protocol}//${returns.host}`
        : returns.origin,
    resource: pending.r,
    asks:
      resource.kind === "session"
        ? "session token"
        : apiKeysConfigured(c.env)
          ? "api key"
          : "nothing",
    consent,
    ...(error === undefined ? {} : { error })
  };
};

export const showConsent = async (c: Context<AppEnv>): Promise<Response> => {
  const url = new URL(c.req.url);
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name))
      return errorPage(`${name} is sent more than once.`);
    query[name] = value;
  }
  const part = ClientPartSchema().safeParse(query);
  if (!part.success)
    return errorPage("The request needs a client_id and a redirect_uri.");
  const keys = await signingKeys(c.env);
  const client = await clientOf(keys, part.data.client_id);
  if (client === undefined)
    return errorPage(
      "This client_id was not registered here: the client must register first."
    );
  const redirectUri = part.data.redirect_uri;
  if (!redirectAllowed(client, redirectUri))
    return errorPage("This redirect_uri is not one the client registered.");
  const iss = url.origin;
  const state = query.state;
  const back = (error: string, description: string) =>
    redirectBack(redirectUri, {
      error,
      error_description: description,
      state,
      iss
    });
  if (query.response_type !== "code")
    return back("unsupported_response_type", "Only response_type=code.");
  const parsed = AuthorizeSchema().safeParse(query);
  if (!parsed.success) return back("invalid_request", firstIssue(parsed.error));
  const scopes = (parsed.data.scope ?? "").split(" ").filter((s) => s !== "");
  if (scopes.some((s) => s !== OAUTH_SCOPE))
    return back("invalid_scope", `The only scope is ${OAUTH_SCOPE}.`);
  const resource = resourceHere(c, parsed.data.resource);
  if (resource === undefined)
    return back(
      "invalid_target",
      "resource must be an MCP endpoint of this server: …/v1/environments/<name>/mcp or …/v1/sessions/<id>/mcp."
    );
  const pending: Pending = {
    i: client.i,
    u: redirectUri,
    h: parsed.data.code_challenge,
    r: resource.uri,
    ...(state === undefined ? {} : { s: state }),
    ...(client.n === undefined ? {} : { n: client.n }),
    j: randomId(),
    x: nowS() + TTL_S.consent
  };
  const consent = await seal(keys, "consent", pending);
  const response = consentPage(view(c, pending, consent));
  const secure = url.protocol === "https:" ? "; Secure" : "";
  response.headers.set(
    "Set-Cookie",
    `${COOKIE}=${pending.j}; Path=/oauth; Max-Age=${TTL_S.consent}; HttpOnly; SameSite=Strict${secure}`
  );
  return response;
};

const cookieOf = (header: string | undefined): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [name, value] = part.trim().split("=");
    if (name === COOKIE) return value;
  }
  return undefined;
};

/**
 * What approving grants, or why the credential typed does not approve:
 * the latest the chain may live (a session token's expiry) and, for an
 * API key, its digest, so removing the key ends the chain's refreshes.
 */
const approval = async (
  c: Context<AppEnv>,
  resource: McpResource,
  typed: string | undefined
): Promise<Pick<Approved, "k" | "d"> | string> => {
  const given = typed?.trim() || undefined;
  if (given !== undefined && (await isApiKey(c.env, given)))
    return { k: 0, d: await keyDigest(given) };
  if (resource.kind === "environment") {
    if (!apiKeysConfigured(c.env)) return { k: 0 };
    return given === undefined
      ? "Type an API key of this server."
      : "That is not an API key of this server.";
  }
  const refused =
    "That is neither a token of this session that may act nor an API key.";
  if (given === undefined) return refused;
  const grant = await verifySessionToken(
    await signingKeys(c.env),
    resource.name,
    given
  );
  if (
    grant === undefined ||
    !allows(grant.scope, "act") ||
    isExpired(grant, Date.now())
  )
    return refused;
  try {
    // The session alone knows whether the token was revoked, or it is gone.
    const id = c.env.SESSIONS.idFromString(resource.name);
    await gatewayTo(c.env.SESSIONS, id, grant).op("status", {});
  } catch (error) {
    if (error instanceof RoostError)
      return `The session refused: ${error.message}`;
    throw error;
  }
  return { k: grant.expiresAt ?? 0 };
};

export const answerConsent = async (c: Context<AppEnv>): Promise<Response> => {
  const form = await readForm(c);
  if (form instanceof Response) return errorPage("The form could not be read.");
  const parsed = ConsentFormSchema().safeParse(form);
  if (!parsed.success) return errorPage(firstIssue(parsed.error));
  const keys = await signingKeys(c.env);
  const pending = await unseal(
    keys,
    "consent",
    parsed.data.consent,
    PendingSchema()
  );
  if (pending === undefined || pending.x <= nowS())
    return errorPage(
      "This consent form has expired or is not genuine: start again from your client."
    );
  if (cookieOf(c.req.header("Cookie")) !== pending.j)
    return errorPage(
      "This form was not opened in this browser (its cookie is missing): start again from your client.",
      403
    );
  const iss = new URL(c.req.url).origin;
  if (parsed.data.decision === "deny")
    return redirectBack(pending.u, {
      error: "access_denied",
      error_description: "The request was denied.",
      state: pending.s,
      iss
    });
  const resource = mcpResource(pending.r)!;
  const approved = await approval(c, resource, parsed.data.credential);
  if (typeof approved === "string")
    return consentPage(view(c, pending, parsed.data.consent, approved), 403);
  const code: Approved = {
    i: pending.i,
    r: pending.r,
    a: Date.now(),
    ...approved,
    j: randomId(),
    x: nowS() + TTL_S.code,
    u: pending.u,
    h: pending.h
  };
  return redirectBack(pending.u, {
    code: await seal(keys, "code", code),
    state: pending.s,
    iss
  });
};
