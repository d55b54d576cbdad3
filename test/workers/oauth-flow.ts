/** @module Drives the OAuth flow against the test worker as a hosted MCP client and its user's browser would. */

import { expect } from "vitest";
import { BASE, type Caller, json } from "./helpers";

export const REDIRECT = "https://client.example/callback";

export const pkce = async (verifier = "v".repeat(20) + crypto.randomUUID()) => {
  const hash = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier)
  );
  const challenge = btoa(String.fromCharCode(...new Uint8Array(hash)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return { verifier, challenge };
};

export const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString()
});

export const register = async (via: Caller, redirect = REDIRECT) => {
  const res = await via("/oauth/register", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [redirect],
      client_name: "Test <Chat>"
    })
  });
  expect(res.status).toBe(201);
  return (await json<{ client_id: string }>(res)).client_id;
};

export interface Consent {
  html: string;
  consent: string;
  cookie: string;
}

/** Opens the consent page for `resource` and reads its form token and cookie. */
export const openConsent = async (
  via: Caller,
  clientId: string,
  resource: string,
  challenge: string,
  extra: Record<string, string> = {}
): Promise<Consent> => {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource,
    state: "st-1",
    scope: "act",
    ...extra
  });
  const res = await via(`/oauth/authorize?${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
  const html = await res.text();
  const consent = /name="consent" value="([^"]+)"/.exec(html)?.[1];
  const cookie = res.headers.get("Set-Cookie")?.split(";")[0];
  expect(consent).toBeDefined();
  expect(cookie).toMatch(/^roost_oauth_consent=/);
  return { html, consent: consent!, cookie: cookie! };
};

/** Submits the consent form as the page would (same origin, with its cookie). */
export const submitConsent = (
  via: Caller,
  consent: Consent,
  fields: Record<string, string> = {}
) => {
  const init = form({ consent: consent.consent, decision: "allow", ...fields });
  return via("/oauth/authorize", {
    ...init,
    headers: { ...init.headers, Cookie: consent.cookie, Origin: BASE }
  });
};

/** The code a 303 back to the client carries, checking state and RFC 9207's iss. */
export const codeOf = (res: Response): string => {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get("Location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get("state")).toBe("st-1");
  expect(location.searchParams.get("iss")).toBe(BASE);
  return location.searchParams.get("code")!;
};

export const exchange = (
  via: Caller,
  clientId: string,
  code: string,
  verifier: string
) =>
  via(
    "/oauth/token",
    form({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier
    })
  );

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** The whole flow, for a resource: registration, consent, code, tokens. */
export const authorize = async (
  via: Caller,
  resource: string,
  approve: Record<string, string> = {}
): Promise<Tokens & { clientId: string }> => {
  const clientId = await register(via);
  const { verifier, challenge } = await pkce();
  const consent = await openConsent(via, clientId, resource, challenge);
  const code = codeOf(await submitConsent(via, consent, approve));
  const res = await exchange(via, clientId, code, verifier);
  expect(res.status).toBe(200);
  return { ...(await json<Tokens>(res)), clientId };
};

export const rpc = (method: string, params: object = {}, id = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

export const INITIALIZE = rpc("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "oauth-test", version: "1" }
});

export const mcpPost = (
  via: Caller,
  path: string,
  body: string,
  headers: Record<string, string>
) =>
  via(path, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers
    },
    body
  });
