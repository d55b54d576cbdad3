/** @module Calls the runtime's HTTP API from the page; errors keep their code and message. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error body's `details`, e.g. `oldest_seq` of a 410 from the event log. */
    readonly details?: Record<string, unknown>
  ) {
    super(message);
  }
}

export interface Credentials {
  id: string;
  token: string;
}

export const api = async <T>(
  method: string,
  path: string,
  options: { body?: unknown; token?: string } = {}
): Promise<T> => {
  const res = await fetch(path, {
    method,
    headers: {
      ...(options.body === undefined
        ? {}
        : { "content-type": "application/json" }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {})
    },
    ...(options.body === undefined
      ? {}
      : { body: JSON.stringify(options.body) })
  });
  const text = await res.text();
  const body = text === "" ? undefined : (JSON.parse(text) as unknown);
  if (!res.ok) {
    const error = (
      body as {
        error?: {
          code?: string;
          message?: string;
          details?: Record<string, unknown>;
        };
      }
    )?.error;
    throw new ApiError(
      res.status,
      error?.code ?? "http_error",
      error?.message ?? `HTTP ${res.status}`,
      error?.details
    );
  }
  return body as T;
};

/** A session route: `/v1/sessions/:id` + `path`, with its token. */
export const sessionApi = <T>(
  s: Credentials,
  method: string,
  path: string,
  body?: unknown
): Promise<T> =>
  api<T>(method, `/v1/sessions/${encodeURIComponent(s.id)}${path}`, {
    token: s.token,
    ...(body === undefined ? {} : { body })
  });
