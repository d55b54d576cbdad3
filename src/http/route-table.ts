/** @module Every route of the API with its method, path and credentials, derived from the route list: for 405 answers and auth-matrix tests. */

import { lazy } from "../lazy";
import { CREATE_SECURITY, SESSION_SECURITY } from "./route-kit";
import { ROUTES } from "./routes";

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

const authOf = (security: unknown): RouteAuth =>
  security === SESSION_SECURITY
    ? "session"
    : security === CREATE_SECURITY
      ? "create"
      : "public";

/** Whether a route reads a body is known once its schemas are built, so the table is built on first use. */
export const ROUTE_TABLE = lazy((): readonly RouteInfo[] =>
  ROUTES.map(({ route, readsBody }) => ({
    method: route.method.toUpperCase() as RouteInfo["method"],
    path: route.path,
    auth: authOf(route.security),
    body: readsBody
  }))
);

const PATTERNS = lazy(() =>
  ROUTES.map(({ route }) => ({
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`)
  }))
);

/** The methods the API serves on `path` (empty for an unknown path). */
export const allowedMethods = (path: string): string[] => [
  ...new Set(
    PATTERNS()
      .filter((p) => p.pattern.test(path))
      .map((p) => p.method)
  )
];
