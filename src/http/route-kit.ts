/** @module The pieces every route definition is built from: JSON content, error responses, security, the app type. */

import type { Hono } from "hono";
import type * as z from "zod";
import type { ErrorStatus } from "../errors";
import { ErrorResponseSchema } from "../protocol";
import type { AppEnv } from "./env";

export type RoostApp = Hono<AppEnv>;

/** The name of the bearer security scheme in `/openapi.json`. */
export const BEARER_SCHEME = "bearer";

type Security = Record<string, string[]>[];

/** Session routes take a session token or an API key. */
export const SESSION_SECURITY: Security = [{ [BEARER_SCHEME]: [] }];

/** Creating a session takes an API key when ROOST_API_KEYS is set, else nothing. */
export const CREATE_SECURITY: Security = [{}, { [BEARER_SCHEME]: [] }];

export const jsonContent = <S extends z.ZodType>(
  schema: S,
  description: string
) => ({ description, content: { "application/json": { schema } } });

/** A required JSON request body (an empty one reads as `{}`). */
export const jsonRequest = <S extends z.ZodType>(schema: S) => ({
  content: { "application/json": { schema } },
  required: true
});

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: "Malformed or invalid input (invalid_json, invalid_request, invalid_name, unknown_state_key, invalid_state_value).",
  401: "No credentials, or an expired or revoked token (unauthorized).",
  403: "Wrong credentials, the same whether or not the session exists, or a token whose scope does not allow this (forbidden, details.scope names the one needed).",
  404: "Unknown session, environment, store key or index (not_found, index_out_of_range).",
  405: "Wrong method on a known path (method_not_allowed).",
  409: "The episode is not running (episode_not_running) or a conflict.",
  410: "Older than retention (gone).",
  413: "Over a size limit (payload_too_large).",
  415: "The body is not JSON (unsupported_media_type).",
  422: "The Idempotency-Key was used with another body (idempotency_mismatch).",
  429: "Over the per-session rate (rate_limited).",
  500: "A bug (internal).",
  501: "What this environment cannot answer in this protocol, e.g. listing an endless generated split (not_implemented).",
  502: "A decision model failed (model_error); only inside a failed run's status.",
  503: "Platform trouble or a missing ROOST_SECRETS (unavailable); see Retry-After."
};

type ErrorResponses<S extends ErrorStatus> = {
  [K in S]: ReturnType<
    typeof jsonContent<ReturnType<typeof ErrorResponseSchema>>
  >;
};

/** Error responses documented with ErrorResponseSchema, keyed by status. */
export const errors = <const S extends readonly ErrorStatus[]>(
  ...statuses: S
): ErrorResponses<S[number]> =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      jsonContent(ErrorResponseSchema(), ERROR_DESCRIPTIONS[status])
    ])
  ) as ErrorResponses<S[number]>;

/** Errors any session route can answer. */
export const SESSION_ERRORS = [400, 401, 403, 404, 500, 503] as const;

/** Errors a session route with a JSON body can answer on top. */
export const BODY_ERRORS = [...SESSION_ERRORS, 413, 415] as const;

/** Errors of a mutation: an episode to run in, an Idempotency-Key. */
export const MUTATION_ERRORS = [...BODY_ERRORS, 409, 422] as const;
