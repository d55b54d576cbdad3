/**
 * @module A layer: one optional capability a worker opts into (MCP,
 * OpenAPI's OpenEnv, Aviary, chat, re-scoring, task statistics, OAuth),
 * as Hono keeps a small core and lets an app add middleware. What it adds
 * to the worker is declared here; what it adds to each session is its
 * `SessionLayer` part (session/layer.ts). The core imports no layer.
 */

import type { Context, MiddlewareHandler } from "hono";
import { RoostError } from "../errors";
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

/** A Durable Object class a layer keeps of its own, and how a worker binds it. */
export interface LayerObject {
  /** The layer's factory, as the worker names it: `taskStats()`. */
  layer: string;
  /** The binding the layer reaches it by: fixed, like SESSIONS. */
  binding: string;
  className: string;
  /** The module the worker exports the class from. */
  module: string;
}

/**
 * The namespace of a layer's own class in the worker's bindings; a worker
 * that forgot it is told (503) what to export and what to bind.
 */
export const layerNamespace = (
  env: unknown,
  object: LayerObject
): DurableObjectNamespace => {
  const namespace = (env as Record<string, unknown> | undefined)?.[
    object.binding
  ] as DurableObjectNamespace | undefined;
  if (namespace !== undefined) return namespace;
  const { layer, binding, className, module } = object;
  throw new RoostError(
    "unavailable",
    `${layer} needs the Durable Object binding ${binding}: export ${className} from your worker (export { ${className} } from "${module}") and add to wrangler.toml [[durable_objects.bindings]] name = "${binding}", class_name = "${className}", with a migration's new_sqlite_classes = ["${className}"].`
  );
};
