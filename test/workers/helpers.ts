/** @module Helpers for tests that drive the worker over HTTP. */

import {
  createExecutionContext,
  env,
  waitOnExecutionContext
} from "cloudflare:test";
import type { ErrorBody } from "../../src/errors";
import type { RoostBindings } from "../../src/http/env";
import type { CreateSessionResponse, StepResponse } from "../../src/protocol";
import type { Scope } from "../../src/protocol/scopes";
import worker from "../worker";

export const BASE = "http://127.0.0.1:8787";

/** A RequestInit whose headers are a plain record, so helpers can merge them. */
export type CallInit = Omit<RequestInit, "headers"> & {
  headers?: Record<string, string>;
};

/**
 * A request to the test worker with the pool's bindings (ROOST_DEV=1),
 * through its fetch handler: the pool's SELF.fetch costs more with every
 * request it has carried (linearly: the fuzz files' later tests took 20×
 * their first), a direct call stays flat.
 */
export const call = (path: string, init?: CallInit): Promise<Response> =>
  fetchWorker(env as unknown as RoostBindings, path, init);

/** Calls the test worker's fetch directly with the given bindings. */
export const fetchWorker = async (
  bindings: RoostBindings,
  path: string,
  init?: CallInit
): Promise<Response> => {
  const ctx = createExecutionContext();
  // Incoming requests carry `cf` properties that a constructed one lacks.
  const request = new Request(`${BASE}${path}`, init) as Parameters<
    typeof worker.fetch
  >[0];
  const response = await worker.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  return response;
};

/**
 * The same worker with some bindings replaced (`undefined` removes one),
 * e.g. `{ ROOST_DEV: undefined, ROOST_SECRETS: "k1:…" }`.
 */
export const callWith = (
  overrides: Partial<Record<keyof RoostBindings, string | undefined>>,
  path: string,
  init?: CallInit
): Promise<Response> =>
  fetchWorker({ ...env, ...overrides } as RoostBindings, path, init);

export type Caller = (path: string, init?: CallInit) => Promise<Response>;

/** A caller with fixed binding overrides. */
export const withEnv =
  (overrides: Parameters<typeof callWith>[0]): Caller =>
  (path, init) =>
    callWith(overrides, path, init);

/** Headers with the bearer credential and, with a body, a JSON content type. */
export const authed = (
  credential: string,
  extra: Record<string, string> = {}
): Record<string, string> => ({
  Authorization: `Bearer ${credential}`,
  "Content-Type": "application/json",
  ...extra
});

/** A JSON request init. */
export const send = (
  method: string,
  body: unknown,
  headers: Record<string, string> = { "Content-Type": "application/json" }
): CallInit => ({ method, headers, body: JSON.stringify(body) });

export const json = async <T = Record<string, unknown>>(
  response: Response
): Promise<T> => (await response.json()) as T;

/** The error body of a response, checking it has the one error shape. */
export const errorOf = async (response: Response): Promise<ErrorBody> => {
  const body = await json<{ error: ErrorBody }>(response);
  if (typeof body.error?.code !== "string") {
    throw new Error(`not an error body: ${JSON.stringify(body)}`);
  }
  return body.error;
};

export interface TestSession extends CreateSessionResponse {
  /** Calls this session's routes with its token: `session.call("/step", …)`. */
  call(path: string, init?: CallInit): Promise<Response>;
}

/**
 * Creates a session (counter by default) and returns it with a caller for
 * its routes. `via` picks the worker bindings; the default is the pool's.
 */
export const createSession = async (
  body: Record<string, unknown> = { environment: "counter" },
  via: Caller = call,
  headers: Record<string, string> = {}
): Promise<TestSession> => {
  const response = await via(
    "/v1/sessions",
    send("POST", body, { "Content-Type": "application/json", ...headers })
  );
  if (response.status !== 201) {
    throw new Error(
      `create failed: ${response.status} ${await response.text()}`
    );
  }
  const created = await json<CreateSessionResponse>(response);
  return {
    ...created,
    call: (path, init = {}) =>
      via(`/v1/sessions/${created.session_id}${path}`, {
        ...init,
        headers: authed(created.token, init.headers)
      })
  };
};

/**
 * The same session reached with a token of `scope`, minted with its
 * control token: `session.call` and its token are the scoped ones.
 */
export const withScope = async (
  s: TestSession,
  scope: Scope,
  ttl_s = 3600,
  via: Caller = call
): Promise<TestSession> => {
  const minted = await s.call("/tokens", send("POST", { scope, ttl_s }));
  if (minted.status !== 201)
    throw new Error(`mint failed: ${minted.status} ${await minted.text()}`);
  const { token } = await json<{ token: string }>(minted);
  return {
    ...s,
    token,
    call: (path, init = {}) =>
      via(`/v1/sessions/${s.session_id}${path}`, {
        ...init,
        headers: authed(token, init.headers)
      })
  };
};

/**
 * A session (counter by default) with its first episode running: created,
 * then reset with an empty body.
 */
export const createResetSession = async (
  body: Record<string, unknown> = { environment: "counter" },
  via: Caller = call
): Promise<TestSession> => {
  const session = await createSession(body, via);
  const response = await session.call("/reset", send("POST", {}));
  if (response.status !== 200) {
    throw new Error(
      `reset failed: ${response.status} ${await response.text()}`
    );
  }
  return session;
};

/** An action calling one tool, as the step route takes it (`toolAction` in session-helpers.ts is the RPC one). */
export const action = (tool: string, args: Record<string, unknown> = {}) => ({
  action: {
    tool_calls: [
      {
        id: `call_${tool}`,
        type: "function",
        function: { name: tool, arguments: args }
      }
    ]
  }
});

/**
 * Everything a client can read of a session over HTTP, as one string for
 * before/after comparisons (`last_used_at` left out: reads move it).
 */
export const readable = async (s: TestSession): Promise<string> => {
  const read = async (p: string) => (await s.call(p)).json();
  const status = (await read("")) as Record<string, unknown>;
  delete status.last_used_at;
  return JSON.stringify([
    status,
    await read("/state"),
    await read("/environment?limit=1000"),
    await read("/messages?limit=1000")
  ]);
};

/** Steps `s` with one tool call, expecting it to be taken. */
export const step = async (
  s: TestSession,
  tool: string,
  args: Record<string, unknown> = {}
): Promise<StepResponse> => {
  const response = await s.call("/step", send("POST", action(tool, args)));
  if (response.status !== 200) {
    throw new Error(`step failed: ${response.status} ${await response.text()}`);
  }
  return json<StepResponse>(response);
};

/** A caller for one copy a fork made, like `createSession`'s. */
export const forkCopy = (
  copy: { session_id: string; token: string; ws_url: string },
  environment: string
): TestSession => ({
  ...copy,
  environment,
  call: (path, init = {}) =>
    call(`/v1/sessions/${copy.session_id}${path}`, {
      ...init,
      headers: authed(copy.token, init.headers)
    })
});
