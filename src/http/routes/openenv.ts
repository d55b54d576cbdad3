/**
 * @module OpenEnv for every environment: its session channel (`/ws`) and its
 * side routes (`/health`, `/metadata`, `/schema`), under three base URLs an
 * OpenEnv client takes as `base_url` (it appends `/ws` and sends no headers):
 * `…/openenv` (open unless ROOST_API_KEYS is set), `…/openenv/c/<credential>`
 * (a connect URL minted with an API key) and `…/openenv/s/<session_id>.<token>`
 * (re-attaching to a session).
 */

import type { Context } from "hono";
import * as z from "zod";
import { lazy } from "../../lazy";
import {
  CLOSE_CODES,
  EnvironmentParamsSchema,
  OpenEnvConnectRequestSchema,
  OpenEnvConnectResponseSchema,
  OpenEnvHealthSchema,
  OpenEnvMetadataSchema,
  OpenEnvSchemaResponseSchema
} from "../../protocol";
import { apiKeysConfigured } from "../api-keys";
import { createAuth } from "../auth";
import {
  defineRawRoute,
  defineRoute,
  type RouteEntry,
  route
} from "../define-route";
import type { AppEnv } from "../env";
import { gatewayTo } from "../gateway";
import { type ChannelOptions, openChannel } from "../openenv/channel";
import { signConnect, verifyConnect } from "../openenv/connect";
import { openEnvSchemas } from "../openenv/translate";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../route-kit";
import { signingKeys } from "../secrets";
import { provenSession } from "../session-credential";

const BASE = "/v1/environments/{name}/openenv";

/** The three bases, each with the same four routes. */
const BASES = [
  {
    prefix: BASE,
    params: EnvironmentParamsSchema,
    what: "a new session per socket; needs a connect URL instead when ROOST_API_KEYS is set"
  },
  {
    prefix: `${BASE}/c/{credential}`,
    params: lazy(() =>
      EnvironmentParamsSchema().extend({
        credential: z.string().min(1).max(512)
      })
    ),
    what: "a new session per socket, admitted by a connect URL's credential"
  },
  {
    prefix: `${BASE}/s/{session}`,
    params: lazy(() =>
      EnvironmentParamsSchema().extend({
        session: z.string().min(1).max(1024)
      })
    ),
    what: "re-attaches to the session <session_id>.<token> names; it is never deleted by its socket"
  }
] as const;

type Params = { name: string; credential?: string; session?: string };

/** Who may open this socket, and on which session; or the refusal its first frame gets. */
const admit = async (
  c: Context<AppEnv>,
  params: Params
): Promise<ChannelOptions> => {
  const environment = c.get("registry").get(params.name);
  const refuse = (message: string, closeCode: number): ChannelOptions => ({
    environment,
    keep: true,
    refusal: { code: "SESSION_ERROR", message, closeCode }
  });
  if (params.session !== undefined) {
    const proven = await provenSession(c, params.session);
    if (proven === undefined)
      return refuse(
        "These credentials do not admit to this session.",
        CLOSE_CODES.forbidden
      );
    const session = gatewayTo(c.env.SESSIONS, proven.durableId, proven.grant);
    const status = await session.op("status", {}).catch(() => undefined);
    if (status === undefined || status.environment !== environment.name)
      return refuse(
        `No ${environment.name} session ${proven.sessionId} exists (any more).`,
        CLOSE_CODES.forbidden
      );
    const token = params.session.slice(params.session.indexOf(".") + 1);
    return {
      environment,
      keep: true,
      session: { sessionId: proven.sessionId, token, session }
    };
  }
  if (params.credential !== undefined) {
    const grant = await verifyConnect(
      await signingKeys(c.env),
      environment.name,
      params.credential,
      Math.floor(Date.now() / 1000)
    );
    return grant === undefined
      ? refuse(
          "This connect URL is not valid (any more): mint another with POST …/openenv/connect.",
          CLOSE_CODES.forbidden
        )
      : { environment, keep: grant.keep };
  }
  await signingKeys(c.env);
  return apiKeysConfigured(c.env)
    ? refuse(
        `This server needs a credential: POST /v1/environments/${environment.name}/openenv/connect with an API key, and give the base_url it answers to OpenEnv's client.`,
        CLOSE_CODES.unauthorized
      )
    : { environment, keep: false };
};

const socketRoute = (base: (typeof BASES)[number]) =>
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
  base: (typeof BASES)[number],
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
      const options = await admit(c, c.req.param() as Params);
      return openChannel(c, options);
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
