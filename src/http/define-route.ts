/** @module A route as one value: its OpenAPI definition and its handler, from which registration, the route table and the document all derive. */

import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import * as z from "zod";
import { jsonBody, readJsonBody } from "./body";
import type { AppEnv } from "./env";
import type { RoostApp } from "./route-kit";
import { throwOnInvalid } from "./validation";

export interface RouteEntry {
  readonly route: RouteConfig;
  /** Typed against `route` where it was defined (see `defineRoute`). */
  readonly handler: RouteHandler<RouteConfig, AppEnv>;
  /** Whether it reads a JSON body (for the route table's 415 and body tests). */
  readonly readsBody: boolean;
}

/**
 * Pairs a route with its handler, type-checked against each other here,
 * once. `readsBody` defaults to whether the route documents a body; MCP's
 * routes read JSON-RPC bodies they do not document as schemas.
 */
export const defineRoute = <R extends RouteConfig>(
  route: R,
  handler: RouteHandler<R, AppEnv>,
  options: { readsBody?: boolean } = {}
): RouteEntry => ({
  route,
  handler: handler as unknown as RouteHandler<RouteConfig, AppEnv>,
  readsBody:
    options.readsBody ??
    (route.request !== undefined && "body" in route.request)
});

const JSON_CONTENT = "application/json";

/** The Content-Type @hono/zod-openapi admits for a JSON body (its media-type gate). */
const JSON_REQUEST =
  /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** A schema check as the validators make it: failures go to `throwOnInvalid`. */
const check = (schema: z.ZodType, value: unknown, target: string): unknown => {
  const result = schema.safeParse(value);
  if (!result.success) throwOnInvalid({ ...result, target });
  return result.data;
};

/**
 * The validators @hono/zod-openapi would add after `jsonBody` — path
 * parameters, its media-type gate, the JSON body — fused with `jsonBody`
 * into one synchronous middleware that parses the body once. Undefined for
 * a route of another shape, which keeps the library's validators.
 */
const fusedJsonBody = (route: RouteConfig) => {
  const { params, query, headers, cookies, body } = route.request ?? {};
  const content = body?.content ?? {};
  const media = content[JSON_CONTENT];
  const schema =
    media !== undefined && "schema" in media ? media.schema : undefined;
  if (
    query !== undefined ||
    headers !== undefined ||
    cookies !== undefined ||
    body?.required !== true ||
    Object.keys(content).length !== 1 ||
    !(schema instanceof z.ZodType) ||
    (params !== undefined && !(params instanceof z.ZodType))
  ) {
    return undefined;
  }
  return createMiddleware<AppEnv>(async (c, next) => {
    const parsed = await readJsonBody(c);
    if (params !== undefined) {
      c.req.addValidatedData(
        "param",
        check(params, c.req.param(), "param") as object
      );
    }
    // jsonBody admitted the media type; the gate is stricter about
    // parameters (and answers with its own message).
    const contentType = c.req.header("Content-Type");
    if (contentType && !JSON_REQUEST.test(contentType)) {
      throw new HTTPException(415, { message: "Unsupported Media Type" });
    }
    c.req.addValidatedData("json", check(schema, parsed, "json") as object);
    await next();
  });
};

/**
 * Registers a route as `app.openapi` would, except that a route whose last
 * middleware is `jsonBody` reads and validates its request in one step
 * (the same checks in the same order, one JSON parse, no async validators):
 * the JSON routes are the ones every step takes.
 */
export const registerRoute = (app: RoostApp, entry: RouteEntry): void => {
  const { middleware, hide, ...route } = entry.route;
  const listed: MiddlewareHandler[] =
    middleware === undefined
      ? []
      : Array.isArray(middleware)
        ? middleware
        : [middleware as MiddlewareHandler];
  const fused = listed.at(-1) === jsonBody ? fusedJsonBody(route) : undefined;
  if (fused === undefined) {
    app.openapi(entry.route, entry.handler);
    return;
  }
  if (!hide) app.openAPIRegistry.registerPath(route);
  app.on(
    [route.method],
    [route.path.replaceAll(/\/{(.+?)}/g, "/:$1")],
    ...listed.slice(0, -1),
    fused,
    entry.handler
  );
};
