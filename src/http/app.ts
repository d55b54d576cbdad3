/** @module The Hono app: CORS, auth, the core's routes and the worker's layers', and the one error shape. */

import { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import type { Registry } from "../environment/registry";
import type { Limits } from "../protocol";
import type { ModelFactory } from "../session/models";
import { sessionAuth } from "./auth";
import { cors } from "./cors";
import { registerRoute } from "./define-route";
import type { AppEnv } from "./env";
import { notFound, onError } from "./errors";
import type { Layer } from "./layer";
import { originGuard } from "./origin-guard";
import type { RoostApp } from "./route-kit";
import { routeTable } from "./route-table";
import { CORE_ROUTES } from "./routes";
import { webSocketGate } from "./routes/events";

export interface AppOptions {
  registry: Registry;
  limits: Limits;
  models: Record<string, ModelFactory>;
  /** The capabilities this worker opts into, each adding routes and middleware. */
  layers?: readonly Layer[];
}

/**
 * Builds the API. Middleware order matters: CORS first (preflights carry
 * no credentials), then the layers' middleware around the credential
 * checks, then session auth, so a bad token is refused before any body is
 * read or any Durable Object is woken.
 */
export const createApp = ({
  registry,
  limits,
  models,
  layers = []
}: AppOptions): RoostApp => {
  // Hono's default router compiles one regular expression for every route
  // on the first request: a fifth of a cold isolate's startup here. The
  // trie matches as it was built; per step, no difference could be measured.
  const app = new Hono<AppEnv>({ router: new TrieRouter() });
  app.onError(onError);
  app.notFound(notFound);
  app.use("*", originGuard);
  app.use("*", cors);
  const routes = [...CORE_ROUTES, ...layers.flatMap((l) => l.routes ?? [])];
  const table = routeTable(routes);
  const accessTokens = layers.flatMap((l) =>
    l.accessTokens === undefined ? [] : [l.accessTokens]
  );
  app.use("*", async (c, next) => {
    c.set("limits", limits);
    c.set("registry", registry);
    c.set("models", models);
    c.set("routes", table);
    c.set("accessTokens", accessTokens);
    c.set("oauth", false);
    await next();
  });
  // Outside the bearer checks, so they see (and may mark) what those answer.
  for (const layer of layers)
    for (const [path, handler] of layer.around ?? []) app.use(path, handler);
  // The socket carries its token in the subprotocol and answers refusals
  // in band (4401/4403), so it is checked before the bearer middleware.
  app.use("/v1/sessions/:id/ws", webSocketGate);
  app.use("/v1/sessions/:id", sessionAuth);
  app.use("/v1/sessions/:id/*", sessionAuth);
  for (const entry of routes) registerRoute(app, entry);
  for (const layer of layers) layer.install?.(app);
  return app;
};
