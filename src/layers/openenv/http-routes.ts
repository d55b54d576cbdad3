/**
 * @module OpenEnv's HTTP routes under each of an environment's OpenEnv
 * bases: `/reset`, `/step` and `/state` (OpenEnv's simulation mode),
 * `/mcp`, and `/openapi.json`, the document `openenv validate` reads.
 *
 * OpenEnv's own server answers each HTTP reset, step and state from a
 * fresh environment it then closes. Roost keeps that on the bases that
 * name no session, with one difference that makes HTTP episodes possible:
 * a reset's session is kept, and its answer carries the base URL that
 * names it (`…/openenv/s/<session_id>.<token>`), under which `/step`,
 * `/state` and `/reset` continue that session (docs/20-openenv.md).
 */

import type { Context } from "hono";
import * as z from "zod";
import { RoostError } from "../../errors";
import { createAuth } from "../../http/auth";
import {
  defineRawRoute,
  type RouteEntry,
  route
} from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import type { StartedSession } from "../../http/gateway";
import {
  CREATE_SECURITY,
  errors,
  jsonContent,
  jsonRequest
} from "../../http/route-kit";
import { sessionCredential } from "../../http/session-credential";
import type { JsonObject } from "../../json";
import { lazy } from "../../lazy";
import {
  JsonObjectSchema,
  type OpenEnvFrame,
  OpenEnvResetDataSchema
} from "../../protocol";
import { answerEnvironmentMcp, answerSessionMcp } from "../mcp/routes";
import { apiDocument } from "../openapi/document";
import { baseDocument } from "./base-openapi";
import { admitRequest, BASES, type Base, type Params } from "./bases";
import { OpenEnvChannel, reattachBase } from "./channel";
import type { Frame } from "./frames";
import { workerHost } from "./worker-host";

/** OpenEnv's StepRequest: the action, and options Roost reads none of. */
const StepRequestSchema = lazy(() =>
  z.looseObject({
    action: JsonObjectSchema(),
    timeout_s: z.number().positive().nullable().optional(),
    request_id: z.string().max(255).nullable().optional()
  })
);

const ObservationSchema = lazy(() =>
  z.looseObject({
    observation: JsonObjectSchema(),
    reward: z.number().nullable(),
    done: z.boolean()
  })
);

/** The open base takes an API key when ROOST_API_KEYS is set; the others carry their credential in the path. */
const guard = (base: Base) =>
  base.prefix.endsWith("/openenv")
    ? { security: CREATE_SECURITY, middleware: [createAuth] }
    : {};

const BASE_ERRORS = [400, 401, 403, 404, 409, 413, 415, 503] as const;

const resetRoute = (base: Base) =>
  route(
    {
      method: "post",
      path: `${base.prefix}/reset`,
      tags: ["openenv"],
      summary: "OpenEnv HTTP reset",
      description:
        "OpenEnv's ResetRequest (seed, episode_id; Roost's task, task_index). Under a base naming a session, resets it; otherwise starts a session, kept until its idle TTL or DELETE /v1/sessions/{id}, whose base URL the answer's observation.metadata.reattach_base_url carries (with session_id and session_token).",
      ...guard(base)
    },
    {
      request: () => ({
        params: base.params(),
        body: jsonRequest(OpenEnvResetDataSchema())
      }),
      responses: () => ({
        200: jsonContent(ObservationSchema(), "The first observation."),
        ...errors(...BASE_ERRORS)
      })
    }
  );

const stepRoute = (base: Base) =>
  route(
    {
      method: "post",
      path: `${base.prefix}/step`,
      tags: ["openenv"],
      summary: "OpenEnv HTTP step",
      description:
        "OpenEnv's StepRequest: {action} with the action /schema describes. Under a base naming a session, steps it; otherwise, as OpenEnv's own server does, steps a fresh episode that is then discarded.",
      ...guard(base)
    },
    {
      request: () => ({
        params: base.params(),
        body: jsonRequest(StepRequestSchema())
      }),
      responses: () => ({
        200: jsonContent(ObservationSchema(), "The step's observation."),
        ...errors(...BASE_ERRORS)
      })
    }
  );

const stateRoute = (base: Base) =>
  route(
    {
      method: "get",
      path: `${base.prefix}/state`,
      tags: ["openenv"],
      summary: "OpenEnv HTTP state",
      description:
        "The state a state frame answers. Under a base naming a session, that session's; otherwise, as OpenEnv's own server does, a fresh episode's, whose session is then discarded (kept: false).",
      ...guard(base)
    },
    {
      request: () => ({ params: base.params() }),
      responses: () => ({
        200: jsonContent(z.looseObject({}), "The state."),
        ...errors(401, 403, 404, 409, 503)
      })
    }
  );

const mcpRoute = (base: Base) =>
  route(
    {
      method: "post",
      path: `${base.prefix}/mcp`,
      tags: ["openenv"],
      summary: "OpenEnv MCP (JSON-RPC)",
      description:
        "The MCP server of /v1/environments/{name}/mcp (of /v1/sessions/{id}/mcp under a base naming a session), except that a malformed message's JSON-RPC error comes with 200, as from OpenEnv's own /mcp, rather than 400.",
      ...guard(base)
    },
    {
      request: () => ({ params: base.params() }),
      responses: () => ({
        200: jsonContent(z.looseObject({}), "A JSON-RPC 2.0 response."),
        202: { description: "A notification: accepted." },
        ...errors(401, 403, 404, 413, 503)
      })
    }
  );

const openapiRoute = (base: Base) =>
  route(
    {
      method: "get",
      path: `${base.prefix}/openapi.json`,
      tags: ["openenv"],
      summary: "OpenAPI document of this OpenEnv base",
      description:
        "This base's routes, paths relative to it, info.version OpenEnv's HTTP API version."
    },
    {
      request: () => ({ params: base.params() }),
      responses: () => ({
        200: jsonContent(z.looseObject({}), "OpenAPI 3.1."),
        ...errors(404)
      })
    }
  );

/** A refusal frame as the API's error: bad input 400, "reset first" 409. */
const answerOf = (frame: Frame | undefined): JsonObject => {
  const data = (frame?.data ?? {}) as JsonObject;
  if (frame?.type !== "error") return data;
  const {
    code,
    message,
    errors: issues
  } = data as {
    code?: string;
    message?: string;
    errors?: JsonObject[];
  };
  throw new RoostError(
    code === "EXECUTION_ERROR" ? "conflict" : "invalid_request",
    message ?? "Refused.",
    issues === undefined ? undefined : { errors: issues }
  );
};

/** Runs frames on the base's session, or on a throwaway one when `fresh` and the base names none. */
const run = async (
  c: Context<AppEnv>,
  frames: Exclude<OpenEnvFrame, { type: "close" }>[],
  fresh: boolean
): Promise<{ answer: JsonObject; session: StartedSession | undefined }> => {
  const options = await admitRequest(c, c.req.param() as Params);
  const host = workerHost(c, options);
  const channel = new OpenEnvChannel(host, {
    keep: options.keep || options.session !== undefined,
    episodeId: null
  });
  const throwaway = fresh && options.session === undefined;
  try {
    if (throwaway) await channel.open();
    let answer: JsonObject = {};
    for (const frame of frames) answer = answerOf(await channel.request(frame));
    return { answer, session: host.started() };
  } finally {
    if (throwaway) {
      await host
        .started()
        ?.session.op("destroy", {})
        .catch(() => undefined);
    }
  }
};

/** 400 JSON-RPC errors of the MCP transport, answered 200 as OpenEnv's /mcp answers them. */
const asOpenEnvMcp = (response: Response): Response =>
  response.status === 400
    ? new Response(response.body, { status: 200, headers: response.headers })
    : response;

export const openEnvHttpRoutes: readonly RouteEntry[] = BASES.flatMap(
  (base) => [
    defineRawRoute(resetRoute(base), async (c) => {
      const data = c.req.valid("json");
      const { answer, session: started } = await run(
        c,
        [{ type: "reset", data }],
        false
      );
      // A reset always leaves a session: the base's own, or the one it made.
      const session = started!;
      const name = c.get("registry").get((c.req.param() as Params).name).name;
      const origin = new URL(c.req.url).origin;
      const metadata = {
        ...((answer.metadata ?? {}) as JsonObject),
        session_token: session.token,
        reattach_base_url: reattachBase(
          origin,
          name,
          session.sessionId,
          session.token
        )
      };
      return c.json(
        {
          ...answer,
          observation: { ...(answer.observation as JsonObject), metadata },
          metadata
        },
        200
      );
    }),
    defineRawRoute(stepRoute(base), async (c) => {
      const { action } = c.req.valid("json");
      const frames: Exclude<OpenEnvFrame, { type: "close" }>[] = [
        { type: "step", data: action }
      ];
      const named = (c.req.param() as Params).session !== undefined;
      if (!named) frames.unshift({ type: "reset", data: {} });
      return c.json((await run(c, frames, true)).answer, 200);
    }),
    defineRawRoute(stateRoute(base), async (c) => {
      const named = (c.req.param() as Params).session !== undefined;
      const { answer } = await run(c, [{ type: "state" }], true);
      return c.json(named ? answer : { ...answer, kept: false }, 200);
    }),
    defineRawRoute(
      mcpRoute(base),
      async (c) => {
        const options = await admitRequest(c, c.req.param() as Params);
        const named = options.session;
        return asOpenEnvMcp(
          named === undefined
            ? await answerEnvironmentMcp(c, options.environment)
            : await answerSessionMcp(
                c,
                named.session,
                sessionCredential(named.sessionId, named.token)
              )
        );
      },
      { readsBody: true }
    ),
    defineRawRoute(openapiRoute(base), (c) => {
      const env = c.get("registry").get((c.req.param() as Params).name);
      return c.json(baseDocument(apiDocument(c), base.prefix, env), 200);
    })
  ]
);
