/** @module `createRoost`: one call from environment definitions to a deployable worker. */

import type { Environment } from "./environment/define-environment";
import { createRegistry } from "./environment/registry";
import { createApp } from "./http/app";
import type { RoostBindings } from "./http/env";
import { socketFork } from "./http/fork-driver";
import type { RoostApp } from "./http/route-kit";
import { type RoostOptions, resolveOptions } from "./session/options";
import {
  createSessionClass,
  type SessionClass
} from "./session/session-object";

export interface RoostConfig extends RoostOptions {
  /** The environments sessions can be created from, by their names. */
  environments: readonly Environment[];
}

export interface Roost {
  /** The worker's fetch handler: export it as `default { fetch }`. */
  fetch: ExportedHandlerFetchHandler<RoostBindings>;
  /** The session Durable Object: export it as `Session` (wrangler binds `SESSIONS` to it). */
  Session: SessionClass;
  /** The Hono app, to mount under another app or to add routes to. */
  app: RoostApp;
}

/**
 * Builds the worker for a set of environments.
 *
 * @example
 * import { createRoost } from "roost-edge";
 * import { counter } from "./counter";
 *
 * const roost = createRoost({ environments: [counter] });
 * export const Session = roost.Session;
 * export default { fetch: roost.fetch };
 */
export const createRoost = ({
  environments,
  ...options
}: RoostConfig): Roost => {
  const registry = createRegistry(environments);
  const resolved = resolveOptions(options);
  const app = createApp({
    registry,
    limits: resolved.limits,
    models: resolved.models
  });
  return {
    fetch: (request, env, ctx) => app.fetch(request, env, ctx),
    Session: createSessionClass(registry, resolved, socketFork),
    app
  };
};
