/** @module Helpers for tests that drive session objects over RPC. */

import {
  env,
  runDurableObjectAlarm,
  runInDurableObject
} from "cloudflare:test";
import { toolCalls } from "../../src/messages/build";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type {
  OperationInput,
  OperationName,
  OperationOutput
} from "../../src/session/operations";
import type { RpcResult } from "../../src/session/rpc";
import type { SessionObject } from "../../src/session/session-object";
import { OPERATIONS } from "./tables";

export const ok = <T>(r: RpcResult<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

export const err = <T>(r: RpcResult<T>) => {
  if (r.ok)
    throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
};

/** What the worker calls on a session's stub (as src/http/stub.ts's `SessionStub`). */
type StubMethods = Pick<SessionObject, "op" | "fetch">;
type Stub = DurableObjectStub<SessionObject>;

/**
 * An operation's arguments: its input, which may be left out where an empty
 * one is valid (status, the reads), then the client's raw Idempotency-Key,
 * which the object binds to the operation as it would a header's.
 */
type OperationArgs<N extends OperationName> =
  Record<never, never> extends OperationInput<N>
    ? [input?: OperationInput<N>, key?: string]
    : [input: OperationInput<N>, key?: string];

/** Every operation of the table by its name: `s.step({ action }, key)` is `op("step", { action }, key)`. */
export type SessionOps = {
  [N in OperationName]: (
    ...args: OperationArgs<N>
  ) => Promise<RpcResult<OperationOutput<N>>>;
};

/**
 * A session object over RPC: its operations by name, `op` and `fetch` as
 * the worker calls them, and `raw`, the stub itself, for the pool's helpers
 * (`runInDurableObject`, `runDurableObjectAlarm`), which check its type.
 */
export type SessionApi = SessionOps & StubMethods & { readonly raw: Stub };

/**
 * Types a stub by the operation table. A Proxy, so a new operation needs no
 * change here; names outside the table answer `undefined`, or `await`ing
 * the wrapper (a `then` lookup) would send an operation named "then".
 */
export const api = (stub: Stub): SessionApi => {
  const methods = stub as unknown as StubMethods;
  return new Proxy({} as SessionApi, {
    get: (_target, name) => {
      if (name === "raw") return stub;
      // Called through the stub, not bound: its methods are RPC stubs, not plain functions.
      if (name === "op") {
        return (...args: Parameters<StubMethods["op"]>) => methods.op(...args);
      }
      if (name === "fetch") {
        return (...args: Parameters<StubMethods["fetch"]>) =>
          methods.fetch(...args);
      }
      if (typeof name !== "string" || !Object.hasOwn(OPERATIONS, name)) {
        return undefined;
      }
      // Tests reach the object as the server does: with a control grant.
      return (input: unknown = {}, key?: string) =>
        methods.op(name as OperationName, input as never, SERVER_GRANT, key);
    }
  });
};

/** The object of a session made over HTTP, through a fresh stub: an aborted object's old stub stays broken. */
export const stubOf = (sessionId: string): SessionApi =>
  api(env.SESSIONS.get(env.SESSIONS.idFromString(sessionId)));

export const newSession = async (environment = "lab", task?: unknown) => {
  const id = env.SESSIONS.newUniqueId();
  const stub = api(env.SESSIONS.get(id));
  ok(await stub.create({ sessionId: id.toString(), environment, task }));
  return { id, stub };
};

/** A new session with its first episode running. */
export const newResetSession = async (environment = "lab", task?: unknown) => {
  const session = await newSession(environment, task);
  ok(await session.stub.reset({}));
  return session;
};

/** A fresh stub for the same object: after an abort it reaches a new instance. */
export const fresh = (id: DurableObjectId) => api(env.SESSIONS.get(id));

/** An action calling one tool, as the step operation takes it (`action` in helpers.ts is the HTTP body's). */
export const toolAction = (name: string, args: Record<string, unknown> = {}) =>
  toolCalls({ name, arguments: args });

/** Everything a client can read, for before/after comparisons. */
export const snapshot = async (stub: SessionApi) => {
  const status = ok(await stub.status());
  const { last_used_at: _ignored, ...stable } = status;
  return {
    status: stable,
    store: ok(await stub.readStore({ limit: 1000 })),
    state: ok(await stub.readState()),
    messages: ok(await stub.messages({ limit: 1000 }))
  };
};

/** Every event of the log, read inside the object (a row holds a run of them). */
export const events = (stub: SessionApi) =>
  runInDurableObject(stub.raw, (_instance, state) =>
    state.storage.sql
      .exec<{ data: string }>("SELECT data FROM events ORDER BY seq")
      .toArray()
      .flatMap((r) => r.data.split("\n"))
      .map(
        (text) =>
          JSON.parse(text) as {
            seq: number;
            type: string;
            [k: string]: unknown;
          }
      )
  );

/** Aborts the object as a crash would; the call itself rejects. */
export const abort = async (stub: SessionApi) => {
  await runInDurableObject(stub.raw, (_instance, state) => {
    state.abort("test abort");
  }).then(
    () => {
      throw new Error("abort() should have rejected");
    },
    () => undefined
  );
};

/** Runs `fn` inside the object with its instance typed. */
export const inside = <R>(
  stub: SessionApi,
  fn: (instance: SessionObject, state: DurableObjectState) => R | Promise<R>
): Promise<R> =>
  runInDurableObject(stub.raw, (instance, state) =>
    fn(instance as unknown as SessionObject, state)
  );

/**
 * Runs the object's due timers and returns once none is due. A timer due
 * at once (the purge a reset sets) is one workerd's own alarm may take
 * first: while that run is pending, `getAlarm()` reads null, so the pool's
 * `runDurableObjectAlarm` runs nothing and answers false, and a test that
 * read storage then would read it before the purge. So this looks at the
 * timers themselves (schedule.ts), by the object's own clock, and waits
 * for the run that holds them.
 */
export const runDueTimers = async (stub: SessionApi): Promise<void> => {
  for (;;) {
    await runDurableObjectAlarm(stub.raw);
    const due = await inside(
      stub,
      (o) => o.runtime.shared.schedule.due(o.runtime.now()).length
    );
    if (due === 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
};

/**
 * Makes a session look written by older code at `version`: those kept
 * the version in `meta` and had no column for it in the session row.
 */
export const recordOldVersion = (sql: SqlStorage, version: number): void => {
  sql.exec(
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    String(version)
  );
  sql.exec("UPDATE session SET schema_version = NULL");
};
