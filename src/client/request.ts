/** @module One HTTP request of the client: credentials, JSON, the error body, and safe retries. */

import type * as z from "zod";
import { ErrorResponseSchema } from "../protocol";
import { RoostClientError } from "./client-error";
import { backoffDelay, type Clock, sleep, systemClock } from "./clock";
import { randomId } from "./ids";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  baseUrl: string;
  fetch?: FetchLike;
  /** Extra attempts after a network error or a 503 (default 3). */
  retries?: number;
  /** First backoff delay (default 200 ms); doubles per attempt. */
  retryBaseMs?: number;
  /** Longest backoff delay, also the cap on `Retry-After` (default 5 s). */
  retryMaxMs?: number;
  clock?: Clock;
  random?: () => number;
}

export interface RequestSpec<T> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A session token or an API key. */
  credential?: string;
  /** An API key sent beside a session token (`X-API-Key`): forking needs one where creating does. */
  apiKey?: string;
  schema: z.ZodType<T>;
  /**
   * `idempotent`: reads and deletes, retried as they are. `keyed`:
   * mutations, sent with an Idempotency-Key (the caller's or a fresh one)
   * so a retry returns the first response instead of running twice.
   * `once`: never retried (create has no key to make a retry safe).
   */
  retry: "idempotent" | "keyed" | "once";
  idempotencyKey?: string;
}

export type Transport = <T>(spec: RequestSpec<T>) => Promise<T>;

/**
 * Builds the function every client method sends through.
 *
 * @example
 * const send = createTransport({ baseUrl: "http://127.0.0.1:8787" });
 * await send({ method: "GET", path: "/health", schema: HealthResponseSchema, retry: "idempotent" });
 */
export const createTransport = (options: TransportOptions): Transport => {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch: FetchLike =
    options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const retries = options.retries ?? 3;
  const backoff = {
    baseMs: options.retryBaseMs ?? 200,
    maxMs: options.retryMaxMs ?? 5000
  };

  return async <T>(spec: RequestSpec<T>): Promise<T> => {
    const url = base + spec.path + queryString(spec.query);
    const headers: Record<string, string> = { accept: "application/json" };
    if (spec.credential) headers.authorization = `Bearer ${spec.credential}`;
    if (spec.apiKey) headers["x-api-key"] = spec.apiKey;
    // Serialized once: the server hashes the raw body with the key, so a
    // retry must send the very same bytes.
    const body =
      spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    if (spec.retry === "keyed")
      headers["idempotency-key"] = spec.idempotencyKey ?? randomId();
    else if (spec.idempotencyKey)
      headers["idempotency-key"] = spec.idempotencyKey;
    const attempts = spec.retry === "once" ? 1 : retries + 1;
    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= attempts;
      let response: Response;
      let text: string;
      try {
        response = await doFetch(url, {
          method: spec.method,
          headers,
          ...(body === undefined ? {} : { body })
        });
        // Read here: a connection dropped mid-body (a server that died
        // after its headers) is a network failure like any other.
        text = await response.text();
      } catch (error) {
        if (last) throw networkError(spec, error);
        await sleep(clock, backoffDelay(attempt, backoff, random));
        continue;
      }
      if (response.status === 503 && !last) {
        const wait = Math.max(
          backoffDelay(attempt, backoff, random),
          retryAfterMs(response, backoff.maxMs)
        );
        await sleep(clock, wait);
        continue;
      }
      return readResponse(response, text, spec);
    }
  };
};

const queryString = (
  query: Record<string, string | number | undefined> | undefined
): string => {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
};

const retryAfterMs = (response: Response, maxMs: number): number => {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0
    ? Math.min(seconds * 1000, maxMs)
    : 0;
};

const networkError = (
  spec: RequestSpec<unknown>,
  error: unknown
): RoostClientError =>
  new RoostClientError(
    "network_error",
    `${spec.method} ${spec.path} failed: ${error instanceof Error ? error.message : String(error)}`,
    0,
    { cause: error instanceof Error ? error.message : String(error) }
  );

const readResponse = <T>(
  response: Response,
  text: string,
  spec: RequestSpec<T>
): T => {
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const parsed = ErrorResponseSchema().safeParse(json);
    if (parsed.success) {
      const { code, message, details } = parsed.data.error;
      throw new RoostClientError(code, message, response.status, details);
    }
    throw new RoostClientError(
      "invalid_response",
      `${spec.method} ${spec.path} answered ${response.status} without an error body: ${text.slice(0, 200)}`,
      response.status
    );
  }
  const parsed = spec.schema.safeParse(json);
  if (!parsed.success) {
    throw new RoostClientError(
      "invalid_response",
      `${spec.method} ${spec.path} answered a body of an unexpected shape: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`,
      response.status,
      { issues: parsed.error.issues }
    );
  }
  return parsed.data;
};
