/**
 * @module OAuth for hosted MCP clients: whether it is on, where its
 * endpoints are, and how long what it issues lives. Off unless
 * ROOST_OAUTH=1; then the worker is its own authorization server, and its
 * issuer is the origin a request reached it at.
 */

import type { RoostBindings } from "../../http/env";

export const oauthEnabled = (env: RoostBindings): boolean =>
  env.ROOST_OAUTH === "1";

export const OAUTH_PATHS = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  serverMetadata: "/.well-known/oauth-authorization-server",
  resourceMetadata: "/.well-known/oauth-protected-resource"
} as const;

/** The one scope a hosted client is given: its tools, never control or grade. */
export const OAUTH_SCOPE = "act";

/**
 * Lifetimes, in seconds. An access token is short because nothing can
 * revoke one but its session's revocation of `act`; the refresh token,
 * used once each time, keeps a connector working for a month without
 * asking again.
 */
export const TTL_S = {
  code: 120,
  consent: 600,
  access: 3600,
  refresh: 30 * 24 * 3600
} as const;
