/** @module The Hono app: CORS, auth, the routes, and the one error shape. */

import { OpenAPIHono } from "@hono/zod-openapi";
import type { Registry } from "../environment/registry";
import type { Limits } from "../protocol";
import { sessionAuth } from "./auth";
import { cors } from "./cors";
import type { AppEnv } from "./env";
import { notFound, onError } from "./errors";
import { openapiDocument, registerSecurity } from "./openapi";
import type { RoostApp } from "./route-kit";
import { registerEpisodeRoutes } from "./routes/episode";
import { registerEventRoutes, webSocketGate } from "./routes/events";
import { registerMcpRoutes } from "./routes/mcp";
import { registerMetaRoutes } from "./routes/meta";
import { registerRunRoutes } from "./routes/runs";
import { registerSessionRoutes } from "./routes/sessions";
import { registerStateRoutes } from "./routes/state";
import { registerStoreEditRoutes } from "./routes/store-edit";
import { registerStoreReadRoutes } from "./routes/store-read";
import { registerToolRoutes } from "./routes/tools";
import { throwOnInvalid } from "./validation";

export interface AppOptions {
  registry: Registry;
  limits: Limits;
}

/**
 * Builds the API. Middleware order matters: CORS first (preflights carry
 * no credentials), then session auth, so a bad token is refused before
 * any body is read or any Durable Object is woken.
 */
export const createApp = ({ registry, limits }: AppOptions): RoostApp => {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: throwOnInvalid });
  app.onError(onError);
  app.notFound(notFound);
  app.use("*", cors);
  app.use("*", async (c, next) => {
    c.set("limits", limits);
    await next();
  });
  // The socket carries its token in the subprotocol and answers refusals
  // in band (4401/4403), so it is checked before the bearer middleware.
  app.use("/v1/sessions/:id/ws", webSocketGate);
  app.use("/v1/sessions/:id", sessionAuth);
  app.use("/v1/sessions/:id/*", sessionAuth);
  registerSecurity(app);
  registerMetaRoutes(app, { registry }, openapiDocument(app));
  registerSessionRoutes(app, { registry });
  registerEpisodeRoutes(app);
  registerToolRoutes(app);
  registerStoreReadRoutes(app);
  registerStoreEditRoutes(app);
  registerStateRoutes(app);
  registerEventRoutes(app);
  registerRunRoutes(app);
  registerMcpRoutes(app, { registry });
  return app;
};
