/**
 * @module Driving a fork: snapshot the source, make the copies, move the
 * snapshot to them chunk by chunk, finish them together. A chunk is read
 * from the source once and written to every copy, so the source's cost does
 * not grow with the number of copies. Any failure deletes every copy: a
 * fork makes all of them or none, and a half-made copy is never served.
 */

import { fromErrorBody, RoostError } from "../errors";
import type { ForkResponse } from "../protocol";
import { type Grant, SERVER_GRANT } from "../protocol/scopes";
import { FIRST_CHUNK, type ForkStart } from "../session/fork-source";
import type { RpcResult } from "../session/rpc";
import { apiKeysConfigured } from "./api-keys";
import type { RoostBindings } from "./env";
import type { SessionStub } from "./gateway";
import { signingKeys } from "./secrets";
import { signToken } from "./token";
import { wsUrl } from "./ws-url";

/** What a fork keeps under its Idempotency-Key: tokens are signed again on a replay. */
interface StoredFork {
  source: string;
  seq: number;
  copied: { rows: number; bytes: number };
  session_ids: string[];
}

type Caller = Pick<SessionStub, "op">;

const interrupted = (): RoostError =>
  new RoostError(
    "unavailable",
    "The fork was interrupted; no copy was kept. Retry it.",
    { retry_after_seconds: 1 }
  );

/** The value of an RPC result; a platform error (a reset object, a broken stub) aborts the fork. */
const value = async <T>(
  what: string,
  call: () => Promise<RpcResult<T>>
): Promise<T> => {
  let result: RpcResult<T>;
  try {
    result = await call();
  } catch (error) {
    console.error(`fork: ${what} failed`, error);
    throw interrupted();
  }
  if (!result.ok) throw fromErrorBody(result.error);
  return result.value;
};

const answer = async (
  env: RoostBindings,
  base: string,
  stored: StoredFork
): Promise<ForkResponse> => {
  const keys = await signingKeys(env);
  return {
    source: stored.source,
    seq: stored.seq,
    copied: stored.copied,
    sessions: await Promise.all(
      stored.session_ids.map(async (id) => ({
        session_id: id,
        token: await signToken(keys, id),
        ws_url: wsUrl(base, id)
      }))
    )
  };
};

/** Copies written at once: each write carries a whole chunk, so 64 at a time could exhaust the isolate's memory. */
const WRITES_IN_FLIGHT = 8;

/** Runs `task` on every item, at most `limit` at a time; rejects with the first failure. */
const pooled = async <T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<unknown>
): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, worker)
  );
};

/**
 * A copy's failure is the fork's, never the source's: whatever a copy
 * answered (a 404 once its alarm deleted it, a 500), the client sees 503
 * and may retry.
 */
const onCopy = async <T>(
  what: string,
  call: () => Promise<RpcResult<T>>
): Promise<T> => {
  try {
    return await value(what, call);
  } catch (error) {
    if (error instanceof RoostError && error.code === "unavailable")
      throw error;
    console.error(`fork: a copy refused ${what}`, error);
    throw interrupted();
  }
};

/**
 * Forks the session `sourceId` (reached through `source`) into `count`
 * copies, in the source's jurisdiction. `base` is the URL clients reach
 * the worker at (for the copies' ws_url); `key` the client's Idempotency-Key.
 */
export const forkSession = async (
  env: RoostBindings,
  source: Caller,
  sourceId: DurableObjectId,
  count: number,
  base: string,
  /** The forking credential's grant: forking needs what the source's forkBegin declares. */
  grant: Grant,
  key?: string,
  /** Smaller chunks than the default, to test a fork of many chunks on a small session. */
  chunkBytes?: number,
  /** A past step of the current episode to copy (layers/branching/rewind.ts). */
  step?: number
): Promise<ForkResponse> => {
  // Fails before anything is made when the worker cannot sign tokens.
  await signingKeys(env);
  const start = (await value("snapshot", () =>
    source.op(
      "forkBegin",
      step === undefined ? { count } : { count, step },
      grant,
      key
    )
  )) as ForkStart;
  if (start.replay) return answer(env, base, start.response as StoredFork);
  const { begun } = start;
  // An EU session's copies (hidden store included) stay in the EU.
  const namespace =
    sourceId.jurisdiction === undefined
      ? env.SESSIONS
      : env.SESSIONS.jurisdiction(
          sourceId.jurisdiction as DurableObjectJurisdiction
        );
  const ids = Array.from({ length: count }, () => namespace.newUniqueId());
  const copies = ids.map((id) => namespace.get(id) as unknown as Caller);
  let stored: StoredFork | undefined;
  try {
    await pooled(copies, WRITES_IN_FLIGHT, (copy, i) =>
      onCopy("importBegin", () =>
        copy.op(
          "importBegin",
          { sessionId: ids[i]!.toString(), origin: begun.origin },
          SERVER_GRANT
        )
      )
    );
    for (let cursor = FIRST_CHUNK; ; ) {
      const chunk = await value("forkChunk", () =>
        source.op(
          "forkChunk",
          {
            snap: begun.snap,
            cursor,
            ...(chunkBytes === undefined ? {} : { maxBytes: chunkBytes })
          },
          grant
        )
      );
      if (chunk.parts.length > 0)
        await pooled(copies, WRITES_IN_FLIGHT, (copy) =>
          onCopy("importChunk", () =>
            copy.op("importChunk", { parts: chunk.parts }, SERVER_GRANT)
          )
        );
      if (chunk.done) break;
      cursor = chunk.next;
    }
    await pooled(copies, WRITES_IN_FLIGHT, (copy) =>
      onCopy("importEnd", () => copy.op("importEnd", {}, SERVER_GRANT))
    );
    stored = {
      source: begun.origin.source,
      seq: begun.origin.seq,
      copied: { rows: begun.rows, bytes: begun.bytes },
      session_ids: ids.map(String)
    };
  } catch (error) {
    await Promise.allSettled(
      copies.map((copy) => copy.op("importAbort", {}, SERVER_GRANT))
    );
    throw error;
  } finally {
    // The snapshot goes either way; only a complete fork is kept for a retry.
    await Promise.allSettled([
      source.op(
        "forkEnd",
        {
          count,
          snap: begun.snap,
          ...(stored === undefined ? {} : { response: stored })
        },
        grant,
        key
      )
    ]);
  }
  return answer(env, base, stored);
};

/**
 * A socket's `fork` request. Forking makes sessions, so where making them
 * needs an API key (ROOST_API_KEYS), a socket admitted by a session token
 * may not: fork over HTTP with the key instead.
 */
export const socketFork = (
  env: unknown,
  source: Caller,
  sourceId: DurableObjectId,
  count: number,
  base: string,
  grant: Grant,
  key: string | undefined,
  step?: number
): Promise<ForkResponse> => {
  const bindings = env as RoostBindings;
  if (apiKeysConfigured(bindings)) {
    throw new RoostError(
      "forbidden",
      "Forking makes sessions, which needs an API key here: use POST /v1/sessions/:id/fork with X-API-Key."
    );
  }
  return forkSession(
    bindings,
    source,
    sourceId,
    count,
    base,
    grant,
    key,
    undefined,
    step
  );
};
