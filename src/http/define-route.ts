/** @module A route as one value: its OpenAPI definition and its handler, from which registration, the route table and the document all derive. */

import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "./env";

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
