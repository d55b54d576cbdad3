/**
 * @module A layer: one optional capability a worker opts into (MCP,
 * OpenAPI's OpenEnv, Aviary, chat, re-scoring, task statistics, OAuth),
 * as Hono keeps a small core and lets an app add middleware. What it adds
 * to the worker is declared here; what it adds to each session is its
 * `SessionLayer` part (session/layer.ts). The core imports no layer.
 */

import type { Context, MiddlewareHandler } from "hono";
import type { Grant } from "../protocol/scopes";
import type { SessionLayer } from "../session/layer";
import type { RouteEntry } from "./define-route";
import type { AppEnv } from "./env";
import type { RoostApp } from "./route-kit";

/**
 * Checks a credential that the layer itself issues (OAuth's access
 * tokens), before session tokens and API keys: its grant, `undefined`
 * when the credential is none of its own, or a thrown `RoostError`.
 */
export type AccessTokenCheck = (
  c: Context<AppEnv>,
  credential: string
) => Promise<Grant | undefined>;

export interface Layer extends SessionLayer {
  /** Its name, as the route table and the docs say it. */
  readonly name: string;
  /** Its routes: registered, documented and listed like the core's. */
  readonly routes?: readonly RouteEntry[];
  /**
   * Middleware on a path, registered before the credential checks so it
   * sees what they answer (OAuth's challenge on MCP's 401s).
   */
  readonly around?: readonly (readonly [
    path: string,
    handler: MiddlewareHandler<AppEnv>
  ])[];
  /**
   * Access tokens the layer issues. A request admitted by one is marked
   * `oauth` (env.ts): it may act, never control.
   */
  readonly accessTokens?: AccessTokenCheck;
  /** Registers what no route entry describes (OAuth's endpoints and metadata). */
  readonly install?: (app: RoostApp) => void;
}
