/** @module Every error becomes `{ error: { code, message, details? } }` with the status from ERROR_STATUS. */

import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { type ErrorCode, RoostError } from "../errors";
import type { AppEnv } from "./env";

// Hono and its validators raise HTTPException with a bare status; give each
// the code a client of this API expects for that status.
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  503: "unavailable"
};

const fromHttpException = (error: HTTPException): RoostError => {
  const code =
    CODE_BY_STATUS[error.status] ??
    (error.status >= 500 ? "internal" : "invalid_request");
  const message =
    code === "internal"
      ? "Internal error."
      : error.message || `HTTP ${error.status}.`;
  return new RoostError(code, message);
};

/**
 * Writes a RoostError as the response, its status and headers from its code.
 * The socket routes' 426s and MCP's and OpenEnv's own error shapes are
 * written where they are answered.
 */
export const errorResponse = (c: Context<AppEnv>, error: RoostError) => {
  const retryAfter = retryAfterOf(error.details);
  if (retryAfter !== undefined) c.header("Retry-After", String(retryAfter));
  if (error.code === "method_not_allowed" && hasAllow(error.details)) {
    c.header("Allow", error.details.allow.join(", "));
  }
  return c.json({ error: error.toBody() }, error.status);
};

/** Errors that say when to come back carry `retry_after_seconds` in their details. */
const retryAfterOf = (details: unknown): number | undefined =>
  typeof details === "object" &&
  details !== null &&
  "retry_after_seconds" in details &&
  typeof details.retry_after_seconds === "number"
    ? details.retry_after_seconds
    : undefined;

const hasAllow = (details: unknown): details is { allow: string[] } =>
  typeof details === "object" &&
  details !== null &&
  "allow" in details &&
  Array.isArray(details.allow);

/**
 * RoostErrors keep their code, Hono's HTTPExceptions get one from their
 * status, and anything else is a bug: logged (method and path only — never
 * headers, bodies or the query, which may carry a token) and answered 500.
 */
export const onError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof RoostError) return errorResponse(c, error);
  if (error instanceof HTTPException) {
    return errorResponse(c, fromHttpException(error));
  }
  console.error(
    `Roost: internal error on ${c.req.method} ${redactPath(new URL(c.req.url).pathname)}`,
    error
  );
  return errorResponse(c, new RoostError("internal", "Internal error."));
};

/** 405 with `Allow` on a known path with another method; 404 otherwise. */
export const notFound: NotFoundHandler<AppEnv> = (c) => {
  const path = new URL(c.req.url).pathname;
  // Unset when a middleware before the app's own refused the request.
  const allow = c.get("routes")?.allowedMethods(path) ?? [];
  if (allow.length > 0 && !allow.includes(c.req.method)) {
    return errorResponse(
      c,
      new RoostError(
        "method_not_allowed",
        `${c.req.method} is not allowed on ${path}; use ${allow.join(", ")}.`,
        { allow }
      )
    );
  }
  return errorResponse(
    c,
    new RoostError("not_found", `No route ${c.req.method} ${path}.`)
  );
};

/** Paths that carry a credential (OpenEnv's base URLs) are logged without it. */
export const redactPath = (path: string): string =>
  path.replace(/\/openenv\/([cs])\/[^/]+/, "/openenv/$1/…");
