/** @module Helpers for tests that drive session objects over RPC. */

import { env, runInDurableObject } from "cloudflare:test";
import { toolCalls } from "../../src/messages/build";
import type { RpcResult } from "../../src/session/rpc";
import type { SessionObject } from "../../src/session/session-object";

export const ok = <T>(r: RpcResult<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

export const err = <T>(r: RpcResult<T>) => {
  if (r.ok)
    throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
};

/** The object's RPC methods: `op` and the typed shorthands over the same table. */
export type SessionApi = Pick<
  SessionObject,
  | "op"
  | "create"
  | "status"
  | "expectUse"
  | "reset"
  | "step"
  | "callTool"
  | "readStore"
  | "storeKeys"
  | "addEntry"
  | "replaceEntry"
  | "removeEntry"
  | "readState"
  | "patchState"
  | "messages"
  | "frame"
  | "destroy"
  | "events"
  | "startRun"
  | "readRun"
  | "cancelRun"
  | "fetch"
>;
type Stub = DurableObjectStub<SessionObject>;

export const api = (stub: Stub): SessionApi => stub as unknown as SessionApi;

export const newSession = async (environment = "lab", task?: unknown) => {
  const id = env.SESSIONS.newUniqueId();
  const stub = api(env.SESSIONS.get(id));
  ok(await stub.create({ sessionId: id.toString(), environment, task }));
  return { id, stub };
};

/** A fresh stub for the same object: after an abort it reaches a new instance. */
export const fresh = (id: DurableObjectId) => api(env.SESSIONS.get(id));

export const call = (name: string, args: Record<string, unknown> = {}) =>
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
  runInDurableObject(stub as unknown as DurableObjectStub, (_instance, state) =>
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
  await runInDurableObject(
    stub as unknown as DurableObjectStub,
    (_instance, state) => {
      state.abort("test abort");
    }
  ).then(
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
  runInDurableObject(stub as unknown as DurableObjectStub, (instance, state) =>
    fn(instance as unknown as SessionObject, state)
  );

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
