/** @module Every route of the API with its method, path and credentials: for 405 answers and auth-matrix tests. */

import { CREATE_SECURITY, SESSION_SECURITY } from "./route-kit";
import { resetRoute, stepRoute } from "./routes/episode";
import { eventsRoute } from "./routes/events";
import {
  MCP_BODY_ROUTES,
  mcpEnvironmentDeleteRoute,
  mcpEnvironmentGetRoute,
  mcpEnvironmentRoute,
  mcpSessionDeleteRoute,
  mcpSessionGetRoute,
  mcpSessionRoute
} from "./routes/mcp";
import { environmentsRoute, healthRoute, openapiRoute } from "./routes/meta";
import { runCancelRoute, runReadRoute, runStartRoute } from "./routes/runs";
import {
  createSessionRoute,
  deleteSessionRoute,
  sessionStatusRoute
} from "./routes/sessions";
import {
  frameRoute,
  messagesRoute,
  statePatchRoute,
  stateReadRoute
} from "./routes/state";
import {
  storeAddRoute,
  storeRemoveAllRoute,
  storeRemoveOneRoute,
  storeReplaceAllRoute,
  storeReplaceOneRoute
} from "./routes/store-edit";
import { storeKeysRoute, storeReadRoute } from "./routes/store-read";
import { toolCallRoute } from "./routes/tools";

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

interface Definition {
  method: string;
  path: string;
  security?: unknown;
  request?: object;
}

const DEFINITIONS: Definition[] = [
  healthRoute,
  environmentsRoute,
  openapiRoute,
  createSessionRoute,
  sessionStatusRoute,
  deleteSessionRoute,
  resetRoute,
  stepRoute,
  toolCallRoute,
  storeReadRoute,
  storeKeysRoute,
  eventsRoute,
  storeAddRoute,
  storeReplaceAllRoute,
  storeReplaceOneRoute,
  storeRemoveAllRoute,
  storeRemoveOneRoute,
  stateReadRoute,
  statePatchRoute,
  messagesRoute,
  frameRoute,
  runStartRoute,
  runReadRoute,
  runCancelRoute,
  mcpSessionRoute,
  mcpSessionGetRoute,
  mcpSessionDeleteRoute,
  mcpEnvironmentRoute,
  mcpEnvironmentGetRoute,
  mcpEnvironmentDeleteRoute
];

const authOf = (security: unknown): RouteAuth =>
  security === SESSION_SECURITY
    ? "session"
    : security === CREATE_SECURITY
      ? "create"
      : "public";

export const ROUTE_TABLE: readonly RouteInfo[] = DEFINITIONS.map((route) => ({
  method: route.method.toUpperCase() as RouteInfo["method"],
  path: route.path,
  auth: authOf(route.security),
  body:
    (route.request !== undefined && "body" in route.request) ||
    (MCP_BODY_ROUTES as Definition[]).includes(route)
}));

const PATTERNS = ROUTE_TABLE.map((route) => ({
  method: route.method,
  pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`)
}));

/** The methods the API serves on `path` (empty for an unknown path). */
export const allowedMethods = (path: string): string[] => [
  ...new Set(PATTERNS.filter((p) => p.pattern.test(path)).map((p) => p.method))
];
