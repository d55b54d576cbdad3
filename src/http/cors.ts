/** @module CORS: origins from ROOST_CORS_ORIGINS, none by default, localhost too with ROOST_DEV=1. */

import { cors as honoCors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import {
  MCP_METHOD_HEADER,
  MCP_NAME_HEADER,
  MCP_SESSION_HEADER,
  MCP_VERSION_HEADER
} from "../protocol";
import { IDEMPOTENCY_HEADER } from "../session/operations";
import { API_KEY_HEADER } from "./auth";
import { type AppEnv, isDev, listSetting, type RoostBindings } from "./env";

const LOCALHOST = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** The value for Access-Control-Allow-Origin, or null to refuse. */
export const allowOrigin = (
  env: RoostBindings,
  origin: string
): string | null => {
  if (origin === "") return null;
  const listed = listSetting(env.ROOST_CORS_ORIGINS);
  // Credentials are bearer headers, never cookies, so "*" is a safe choice.
  if (listed.includes("*")) return "*";
  if (listed.includes(origin)) return origin;
  if (isDev(env) && LOCALHOST.test(origin)) return origin;
  return null;
};

const withCors = honoCors({
  origin: (origin, c) => allowOrigin(c.env as RoostBindings, origin),
  allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
  // A browser MCP client sends and must read back the MCP session header;
  // a browser forking where API keys are required sends X-API-Key.
  allowHeaders: [
    "Authorization",
    "Content-Type",
    IDEMPOTENCY_HEADER,
    API_KEY_HEADER,
    MCP_SESSION_HEADER,
    MCP_VERSION_HEADER,
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER
  ],
  exposeHeaders: [
    "Retry-After",
    "Allow",
    "WWW-Authenticate",
    MCP_SESSION_HEADER
  ],
  maxAge: 600
});

/**
 * Answers preflights and marks allowed origins on every response, errors
 * included. A request without an Origin header comes from no browser, so
 * it skips CORS: Hono's middleware would otherwise build a placeholder
 * response per request just to carry Access-Control-Expose-Headers.
 */
export const cors = createMiddleware<AppEnv>((c, next) =>
  c.req.header("Origin") === undefined ? next() : withCors(c, next)
);
