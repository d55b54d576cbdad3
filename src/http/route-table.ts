/** @module A worker's routes with their method, path and credentials, derived from its route list: for 405 answers and auth-matrix tests. */

import { lazy } from "../lazy";
import type { RouteEntry } from "./define-route";
import { CREATE_SECURITY, SESSION_SECURITY } from "./route-kit";

/**
 * `public`: no credentials. `create`: an API key when ROOST_API_KEYS is
 * set. `session`: the session's token or an API key.
 */
export type RouteAuth = "public" | "create" | "session";

export interface RouteInfo {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI form: `/v1/sessions/{id}/step`. */
  path: string;
  auth: RouteAuth;
  /** Whether the route reads a JSON body. */
  body: boolean;
}

export interface RouteTable {
  /** The route entries themselves (the OpenAPI layer documents them). */
  readonly entries: readonly RouteEntry[];
  /** Every route; whether one reads a body is known once its schemas are built, so this is built on first use. */
  readonly info: () => readonly RouteInfo[];
  /** The methods the worker serves on `path` (empty for an unknown path). */
  allowedMethods(path: string): string[];
}

const authOf = (security: unknown): RouteAuth =>
  security === SESSION_SECURITY
    ? "session"
    : security === CREATE_SECURITY
      ? "create"
      : "public";

/** The table of a worker's route list: the core's and its layers'. */
export const routeTable = (routes: readonly RouteEntry[]): RouteTable => {
  const patterns = lazy(() =>
    routes.map(({ route }) => ({
      method: route.method.toUpperCase(),
      pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`)
    }))
  );
  return {
    entries: routes,
    info: lazy((): readonly RouteInfo[] =>
      routes.map(({ route, readsBody }) => ({
        method: route.method.toUpperCase() as RouteInfo["method"],
        path: route.path,
        auth: authOf(route.security),
        body: readsBody
      }))
    ),
    allowedMethods: (path) => [
      ...new Set(
        patterns()
          .filter((p) => p.pattern.test(path))
          .map((p) => p.method)
      )
    ]
  };
};
