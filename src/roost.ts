/** @module `createRoost`: one call from environment definitions to a deployable worker. */

import type { Environment } from "./environment/define-environment";
import { createRegistry } from "./environment/registry";
import { createApp } from "./http/app";
import type { RoostBindings } from "./http/env";
import { socketFork } from "./http/fork-driver";
import type { Layer } from "./http/layer";
import type { RoostApp } from "./http/route-kit";
import { learnOperations } from "./session/operations";
import { type RoostOptions, resolveOptions } from "./session/options";
import {
  createSessionClass,
  type SessionClass
} from "./session/session-object";

export interface RoostConfig extends RoostOptions {
  /** The environments sessions can be created from, by their names. */
  environments: readonly Environment[];
  /**
   * The capabilities beyond the session core that this worker serves
   * (`mcp()`, `openenv()`, `aviary()`, `chat()`, `rescore()`,
   * `taskStats()`, `oauth()`, from `roost-edge/layers/*`). Without them a
   * worker serves sessions over HTTP and the session socket, and carries
   * none of their code.
   */
  layers?: readonly Layer[];
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
 * // or, with MCP and OpenEnv's protocol besides HTTP and the socket:
 * // createRoost({ environments: [counter], layers: [mcp(), openenv()] })
 * export const Session = roost.Session;
 * export default { fetch: roost.fetch };
 */
export const createRoost = ({
  environments,
  layers = [],
  ...options
}: RoostConfig): Roost => {
  const registry = createRegistry(environments);
  const resolved = resolveOptions(options);
  for (const layer of layers) learnOperations(layer.operations ?? {});
  const app = createApp({
    registry,
    limits: resolved.limits,
    models: resolved.models,
    layers
  });
  return {
    fetch: (request, env, ctx) => app.fetch(request, env, ctx),
    Session: createSessionClass(registry, resolved, socketFork, layers),
    app
  };
};
