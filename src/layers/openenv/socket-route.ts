/**
 * @module OpenEnv for every environment: its session channel (`/ws`) and its
 * side routes (`/health`, `/metadata`, `/schema`), under the three base URLs
 * of bases.ts that an OpenEnv client takes as `base_url` (it appends
 * `/ws` and sends no headers). The HTTP episode routes, `/mcp` and
 * `/openapi.json` are in http-routes.ts.
 */

import type { Context } from "hono";
import { createAuth } from "../../http/auth";
import {
  defineRawRoute,
  defineRoute,
  type RouteEntry,
  route
} from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../../http/route-kit";
import { signingKeys } from "../../http/secrets";
import {
  EnvironmentParamsSchema,
  OpenEnvConnectRequestSchema,
  OpenEnvConnectResponseSchema,
  OpenEnvHealthSchema,
  OpenEnvMetadataSchema,
  OpenEnvSchemaResponseSchema
} from "../../protocol";
import { admit, BASE, BASES, type Base, type Params } from "./bases";
import { signConnect } from "./connect";
import { forwardSocket } from "./forward-socket";
import { openEnvSchemas } from "./translate";

const socketRoute = (base: Base) =>
  route(
    {
      method: "get",
      path: `${base.prefix}/ws`,
      tags: ["openenv"],
      summary: "OpenEnv session channel (WebSocket)",
      description: `OpenEnv's /ws: ${base.what}. Frames {"type":"reset"|"step"|"state"|"close"|"mcp", "data"}; one answer per request, {"type":"observation"|"state"|"mcp"|"error", "data"}. A refused socket is accepted, answers its first frame with an error, and closes (4401/4403).`
    },
    {
      request: () => ({ params: base.params() }),
      responses: () => ({
        101: { description: "Switching protocols." },
        426: { description: "Not a WebSocket upgrade." },
        ...errors(404)
      })
    }
  );

/** `/health`, `/metadata` and `/schema`: a JSON answer about the environment. */
const infoRoute = <S extends Parameters<typeof jsonContent>[0]>(
  base: Base,
  path: "health" | "metadata" | "schema",
  schema: () => S,
  summary: string
) =>
  route(
    {
      method: "get",
      path: `${base.prefix}/${path}`,
      tags: ["openenv"],
      summary
    },
    {
      request: () => ({ params: base.params() }),
      responses: () => ({ 200: jsonContent(schema(), summary), ...errors(404) })
    }
  );

export const openEnvConnectRoute = route(
  {
    method: "post",
    path: `${BASE}/connect`,
    tags: ["openenv"],
    summary: "Mint an OpenEnv connect URL",
    description:
      "OpenEnv's client sends no headers, so its credential rides in the base URL: scoped to this environment, expiring, revoked by rotating ROOST_SECRETS. keep: sessions outlive their socket, for re-attaching. Treat base_url as a secret.",
    security: CREATE_SECURITY,
    middleware: [createAuth] as const
  },
  {
    request: () => ({
      params: EnvironmentParamsSchema(),
      body: jsonRequest(OpenEnvConnectRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(OpenEnvConnectResponseSchema(), "The base URL."),
      ...errors(400, 401, 403, 404, 413, 415, 503)
    })
  }
);

const environmentOf = (c: Context<AppEnv>) =>
  c.get("registry").get(c.req.param("name") ?? "");

export const openEnvRoutes: readonly RouteEntry[] = [
  defineRoute(openEnvConnectRoute, async (c) => {
    const { name } = c.req.valid("param");
    const environment = c.get("registry").get(name);
    const { keep, ttl_seconds } = c.req.valid("json");
    const expiresAt = Math.floor(Date.now() / 1000) + ttl_seconds;
    const credential = await signConnect(await signingKeys(c.env), {
      environment: environment.name,
      expiresAt,
      keep
    });
    const origin = new URL(c.req.url).origin;
    return c.json(
      {
        base_url: `${origin}/v1/environments/${environment.name}/openenv/c/${credential}`,
        expires_at: new Date(expiresAt * 1000).toISOString()
      },
      200
    );
  }),
  ...BASES.flatMap((base) => [
    defineRawRoute(socketRoute(base), async (c) => {
      if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
        return c.json(
          {
            error: {
              code: "invalid_request",
              message:
                "Connect with a WebSocket upgrade (OpenEnv's client appends /ws to its base_url)."
            }
          },
          426,
          { Upgrade: "websocket" }
        );
      }
      return forwardSocket(c, await admit(c, c.req.param() as Params, false));
    }),
    defineRoute(
      infoRoute(base, "health", OpenEnvHealthSchema, "OpenEnv health"),
      (c) => {
        environmentOf(c);
        return c.json({ status: "healthy" as const }, 200);
      }
    ),
    defineRoute(
      infoRoute(base, "metadata", OpenEnvMetadataSchema, "OpenEnv metadata"),
      (c) => {
        const env = environmentOf(c);
        return c.json(
          {
            name: env.name,
            description: env.description,
            readme_content: null,
            version: "1.0.0",
            author: null,
            documentation_url: null
          },
          200
        );
      }
    ),
    defineRoute(
      infoRoute(
        base,
        "schema",
        OpenEnvSchemaResponseSchema,
        "OpenEnv action, observation and state schemas"
      ),
      (c) => c.json(openEnvSchemas(environmentOf(c)), 200)
    )
  ])
];
