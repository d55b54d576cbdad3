/**
 * @module The 401 an MCP client starts OAuth from: with OAuth on, every
 * 401 of an MCP endpoint says where the endpoint's resource metadata is
 * (RFC 9728 §5.1, as the MCP authorization spec asks), whichever check
 * refused. Other routes' 401s are as they were.
 */

import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../http/env";
import { requestResource, resourceMetadataUrl } from "./resource";
import { OAUTH_SCOPE, oauthEnabled } from "./settings";

export const oauthChallenge = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status !== 401 || !oauthEnabled(c.env)) return;
  const resource = requestResource(c.req.url);
  if (resource === undefined) return;
  // A credential was sent and refused: RFC 6750's invalid_token.
  const error = c.req.header("Authorization") ? ', error="invalid_token"' : "";
  c.res.headers.set(
    "WWW-Authenticate",
    `Bearer resource_metadata="${resourceMetadataUrl(resource.uri)}", scope="${OAUTH_SCOPE}"${error}`
  );
});
