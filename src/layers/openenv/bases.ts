/**
 * @module OpenEnv's three base URLs for an environment, and who each one
 * admits: `…/openenv` (open unless ROOST_API_KEYS is set),
 * `…/openenv/c/<credential>` (a connect URL minted with an API key) and
 * `…/openenv/s/<session_id>.<token>` (one session, re-attached).
 */

import type { Context } from "hono";
import * as z from "zod";
import type { Environment } from "../../environment/define-environment";
import { RoostError } from "../../errors";
import { apiKeysConfigured } from "../../http/api-keys";
import type { AppEnv } from "../../http/env";
import type { StartedSession } from "../../http/gateway";
import { gatewayTo } from "../../http/gateway";
import { signingKeys } from "../../http/secrets";
import { provenSession } from "../../http/session-credential";
import { lazy } from "../../lazy";
import { CLOSE_CODES, EnvironmentParamsSchema } from "../../protocol";
import { verifyConnect } from "./connect";

/** Who a socket or request was admitted as. */
export interface ChannelOptions {
  environment: Environment;
  /** Re-attach to this session instead of making one. */
  session?: StartedSession;
  /** The session outlives the socket (re-attached sockets always keep theirs). */
  keep: boolean;
  /** Refuse: answer the first frame with this error, then close. */
  refusal?: Refusal;
}

export interface Refusal {
  code: "SESSION_ERROR" | "FACTORY_ERROR";
  message: string;
  closeCode: number;
}

export const BASE = "/v1/environments/{name}/openenv";

/** The three bases, each with the same four routes. */
export const BASES = [
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

export type Params = { name: string; credential?: string; session?: string };

/** Who may open this socket, and on which session; or the refusal its first frame gets. */
export const admit = async (
  c: Context<AppEnv>,
  params: Params,
  /** Whether to ask the session that it exists (a socket's object checks it itself). */
  checkSession = true
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
    const status = checkSession
      ? await session.op("status", {}).catch(() => undefined)
      : { environment: environment.name };
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

export type Base = (typeof BASES)[number];

/**
 * `admit` for a plain HTTP request: the refusal a socket would get first is
 * thrown as the API's error. The open base's HTTP routes sit behind
 * `createAuth` instead, so an API key in a header admits there too, where
 * a socket (whose OpenEnv client sends no headers) could only be refused.
 */
export const admitRequest = async (
  c: Context<AppEnv>,
  params: Params
): Promise<ChannelOptions> => {
  if (params.session === undefined && params.credential === undefined) {
    return { environment: c.get("registry").get(params.name), keep: true };
  }
  const options = await admit(c, params);
  const refusal = options.refusal;
  if (refusal === undefined) return options;
  throw new RoostError(
    refusal.closeCode === CLOSE_CODES.unauthorized
      ? "unauthorized"
      : "forbidden",
    refusal.message
  );
};
