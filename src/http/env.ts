/** @module The worker's bindings and the one Hono environment every route and middleware is typed with. */

import type { Registry } from "../environment/registry";
import type { Limits } from "../protocol";
import type { Grant } from "../protocol/scopes";
import type { ModelFactory } from "../session/models";
import type { SessionObject } from "../session/session-object";
import type { AccessTokenCheck } from "./layer";
import type { RouteTable } from "./route-table";

/** What `wrangler.toml`, `.dev.vars` and secrets give the worker. */
export interface RoostBindings {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  /** Token signing keys, `kid:secret` comma-separated; the first signs, all verify. */
  ROOST_SECRETS?: string;
  /** Comma-separated API keys; any one admits. When set, creating a session needs one. */
  ROOST_API_KEYS?: string;
  /** `"1"` allows the fixed development secret and localhost CORS. Never in production. */
  ROOST_DEV?: string;
  /** Comma-separated allowed browser origins (`*` for any). */
  ROOST_CORS_ORIGINS?: string;
  /** `"1"` makes the worker an OAuth 2.1 authorization server for its MCP endpoints (docs/10-auth.md). */
  ROOST_OAUTH?: string;
}

/** Set by the middleware before a handler runs. */
export interface RoostVariables {
  /** The session id of the path, after its credentials were checked. */
  sessionId: string;
  /** The same id as the platform parsed it (`idFromString`). */
  durableId: DurableObjectId;
  /** What the request's credential grants on that session. */
  grant: Grant;
  /** This deployment's limits (the body reader needs requestBodyBytes). */
  limits: Limits;
  /** The environments sessions can be created from. */
  registry: Registry;
  /** `createRoost({ models })`: the listing names the models runs may ask for. */
  models: Record<string, ModelFactory>;
  /** Set when the request's credential is an OAuth access token: it may act, never control. */
  oauth: boolean;
  /** The worker's routes: the 405s' Allow header and the route table (route-table.ts). */
  routes: RouteTable;
  /** The access-token checks of the worker's layers (layer.ts), in order. */
  accessTokens: readonly AccessTokenCheck[];
}

export type AppEnv = { Bindings: RoostBindings; Variables: RoostVariables };

export const isDev = (env: RoostBindings): boolean => env.ROOST_DEV === "1";

/** Splits a comma-separated setting, dropping blanks. */
export const listSetting = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
