/**
 * @module OAuth 2.1 for hosted MCP clients (ROOST_OAUTH=1): discovery
 * (RFC 9728, RFC 8414), client registration (RFC 7591), the authorization
 * endpoint with its consent page, and the token endpoint. Off, every path
 * here is a 404.
 *
 * Hand-written rather than @cloudflare/workers-oauth-provider (1.2.3),
 * which supports resource binding and client metadata documents: it adds
 * about 30 KiB gzipped to the worker (146.6 → 177.0 KiB, past the 150 KiB
 * budget), and it would need a KV namespace and its own token format. Here
 * every token is Roost's own, signed with ROOST_SECRETS, and only a code's
 * or a refresh token's single use is stored (ledger.ts).
 *
 * These routes are not in the OpenAPI document: their bodies are forms and
 * their errors RFC 6749's, which OAuth clients read from the metadata.
 */

import { createMiddleware } from "hono/factory";
import { RoostError } from "../../errors";
import { readCapped } from "../../http/body";
import type { AppEnv } from "../../http/env";
import type { RoostApp } from "../../http/route-kit";
import { signingKeys } from "../../http/secrets";
import { answerConsent, showConsent } from "./authorize";
import { redirectUriProblem, registerClient } from "./clients";
import { mcpResource } from "./resource";
import { RegistrationSchema } from "./schemas";
import { OAUTH_PATHS, OAUTH_SCOPE, oauthEnabled } from "./settings";
import { token } from "./token-endpoint";
import { firstIssue, oauthError, oauthJson } from "./wire";

const GRANT_TYPES = ["authorization_code", "refresh_token"];

const enabled = createMiddleware<AppEnv>(async (c, next) => {
  if (!oauthEnabled(c.env))
    throw new RoostError(
      "not_found",
      "OAuth is off on this server: its operator sets ROOST_OAUTH=1 to turn it on."
    );
  await next();
});

export const registerOAuthRoutes = (app: RoostApp): void => {
  app.use("/oauth/*", enabled);
  app.use(OAUTH_PATHS.serverMetadata, enabled);
  app.use(`${OAUTH_PATHS.resourceMetadata}/*`, enabled);

  app.get(OAUTH_PATHS.serverMetadata, (c) => {
    const issuer = new URL(c.req.url).origin;
    return oauthJson({
      issuer,
      authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
      token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
      registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
      response_types_supported: ["code"],
      grant_types_supported: GRANT_TYPES,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      scopes_supported: [OAUTH_SCOPE],
      authorization_response_iss_parameter_supported: true
    });
  });

  app.get(`${OAUTH_PATHS.resourceMetadata}/*`, (c) => {
    const url = new URL(c.req.url);
    const path = url.pathname.slice(OAUTH_PATHS.resourceMetadata.length);
    const resource = mcpResource(`${url.origin}${path}`);
    const known =
      resource !== undefined &&
      (resource.kind === "session" || c.get("registry").has(resource.name));
    if (!known)
      throw new RoostError(
        "not_found",
        `No MCP endpoint at ${path}: resource metadata is served for /v1/environments/<name>/mcp and /v1/sessions/<id>/mcp.`
      );
    return oauthJson({
      resource: resource.uri,
      authorization_servers: [url.origin],
      scopes_supported: [OAUTH_SCOPE],
      bearer_methods_supported: ["header"],
      resource_name: `Roost ${resource.kind} ${resource.name}`
    });
  });

  app.post(OAUTH_PATHS.register, async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await readCapped(c.req.raw, 32 * 1024));
    } catch {
      return oauthError(
        "invalid_client_metadata",
        "Send the client's metadata as a JSON object (at most 32 KiB)."
      );
    }
    const parsed = RegistrationSchema().safeParse(body);
    if (!parsed.success)
      return oauthError("invalid_client_metadata", firstIssue(parsed.error));
    const meta = parsed.data;
    for (const uri of meta.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem !== undefined)
        return oauthError("invalid_redirect_uri", problem);
    }
    if (meta.grant_types?.some((g) => !GRANT_TYPES.includes(g)))
      return oauthError(
        "invalid_client_metadata",
        `grant_types may name ${GRANT_TYPES.join(" and ")} only.`
      );
    if (meta.response_types?.some((r) => r !== "code"))
      return oauthError(
        "invalid_client_metadata",
        "response_types may name code only."
      );
    const name = meta.client_name?.trim() || undefined;
    const clientId = await registerClient(
      await signingKeys(c.env),
      meta.redirect_uris,
      name
    );
    // Every client is public: whatever method it asked for, it is told
    // "none" (RFC 7591 §3.2.1 lets the server replace what it asked).
    return oauthJson(
      {
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        ...(name === undefined ? {} : { client_name: name }),
        redirect_uris: meta.redirect_uris,
        token_endpoint_auth_method: "none",
        grant_types: GRANT_TYPES,
        response_types: ["code"]
      },
      201
    );
  });

  app.get(OAUTH_PATHS.authorize, showConsent);
  app.post(OAUTH_PATHS.authorize, answerConsent);
  app.post(OAUTH_PATHS.token, token);
};
