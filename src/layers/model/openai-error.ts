/**
 * @module The gateway's errors as OpenAI's API words them: a harness on an
 * OpenAI client (whose `APIError` reads `error.message`, `error.type` and
 * `error.code`) points it at `…/model/v1` and never learns Roost's error
 * shape, so every answer the gateway gives under that base URL is in
 * OpenAI's, its own refusals and the core's (credentials, body, limits,
 * unknown paths) alike. The upstream's own errors pass through as given.
 */

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import * as z from "zod";
import { type ErrorCode, isErrorCode } from "../../errors";
import type { AppEnv } from "../../http/env";
import { jsonContent } from "../../http/route-kit";
import { lazy } from "../../lazy";

export const ModelErrorResponseSchema = lazy(() =>
  z
    .object({
      error: z.object({
        message: z.string(),
        /** Roost's error code (episode_not_running, conflict, model_error, …): OpenAI clients read it as the error's type. */
        type: z.string(),
        /** The same code, which OpenAI clients read as `code`. */
        code: z.string(),
        param: z.null(),
        /** What Roost's error says more (`{limit, max}` past a limit). */
        details: z.unknown().optional()
      })
    })
    .meta({
      id: "ModelErrorResponse",
      description:
        "An error of the model gateway, in OpenAI's shape: `type` and `code` are Roost's error code."
    })
);
export type ModelErrorResponse = z.infer<
  ReturnType<typeof ModelErrorResponseSchema>
>;

export const openAIErrorBody = (
  code: ErrorCode,
  message: string,
  details?: unknown
): ModelErrorResponse => ({
  error: {
    message,
    type: code,
    code,
    param: null,
    ...(details === undefined ? {} : { details })
  }
});

export const openAIError = (
  status: number,
  code: ErrorCode,
  message: string,
  details?: unknown
): Response =>
  Response.json(openAIErrorBody(code, message, details), { status });

/** Requests the chat handler answered itself: the upstream's errors are passed on as the upstream gave them. */
const answered = new WeakSet<Request>();

export const answeredByGateway = (c: Context<AppEnv>): void => {
  answered.add(c.req.raw);
};

/**
 * Around the gateway's paths, outside the credential checks: rewrites an
 * error answered in Roost's shape (`{error: {code, message, details?}}`,
 * whichever check or handler threw it) into OpenAI's, keeping its status
 * and headers (Retry-After, Allow).
 */
export const openAIErrors = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status < 400 || answered.has(c.req.raw)) return;
  if (!(c.res.headers.get("Content-Type") ?? "").includes("json")) return;
  const body = (await c.res
    .clone()
    .json()
    .catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown; details?: unknown } }
    | undefined;
  const error = body?.error;
  if (!isErrorCode(error?.code) || typeof error.message !== "string") return;
  c.res = openAIError(c.res.status, error.code, error.message, error.details);
});

const STATUS_MEANING: Record<number, string> = {
  400: "The body is not a chat request (invalid_json, invalid_request).",
  401: "No credentials, or an expired or revoked token (unauthorized).",
  403: "Wrong credentials, or a token that may not call the model (forbidden).",
  404: "Unknown session (not_found).",
  409: "No episode running: before the first reset, or after the episode ended and before the next (episode_not_running, reset first); past an episode's calls, tokens or bytes (conflict, `details: {limit, max}`); or the episode ended while the model answered (conflict: a reset; episode_not_running: the episode ended).",
  413: "Over the worker's request size (payload_too_large).",
  415: "The body is not JSON (unsupported_media_type).",
  500: "A bug (internal).",
  502: "The upstream could not be reached, timed out, or answered past the gateway's bytes (model_error), recorded. The upstream's own errors come with its status and body.",
  503: "No upstream is configured, or platform trouble (unavailable)."
};

/** Error responses documented with ModelErrorResponseSchema, keyed by status. */
export const modelErrors = () =>
  Object.fromEntries(
    Object.entries(STATUS_MEANING).map(([status, meaning]) => [
      status,
      jsonContent(ModelErrorResponseSchema(), meaning)
    ])
  );
