/**
 * @module Driving a fork: snapshot the source, make the copies, move the
 * snapshot to them chunk by chunk, finish them together. A chunk is read
 * from the source once and written to every copy, so the source's cost does
 * not grow with the number of copies. Any failure deletes every copy: a
 * fork makes all of them or none, and a half-made copy is never served.
 */

import { fromErrorBody, RoostError } from "../errors";
import type { ForkResponse } from "../protocol";
import type { ForkStart } from "../session/fork";
import type { OperationName } from "../session/operations";
import type { RpcResult } from "../session/rpc";
import type { SessionObject } from "../session/session-object";
import type { RoostBindings } from "./env";
import { signingKeys } from "./secrets";
import type { SessionStub } from "./stub";
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
    throw new RoostError(
      "unavailable",
      "The fork was interrupted; no copy was kept. Retry it.",
      { retry_after_seconds: 1 }
    );
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

/**
 * Forks `source` into `count` copies. `base` is the URL clients reach the
 * worker at (for the copies' ws_url); `key` the client's Idempotency-Key.
 */
export const forkSession = async (
  env: RoostBindings,
  source: Caller,
  count: number,
  base: string,
  key?: string,
  /** Smaller chunks than the default, to test a fork of many chunks on a small session. */
  chunkBytes?: number
): Promise<ForkResponse> => {
  // Fails before anything is made when the worker cannot sign tokens.
  await signingKeys(env);
  const start = (await value("snapshot", () =>
    source.op("forkBegin", { count }, key)
  )) as ForkStart;
  if (start.replay) return answer(env, base, start.response as StoredFork);
  const { begun } = start;
  const ids = Array.from({ length: count }, () => env.SESSIONS.newUniqueId());
  const copies = ids.map((id) => env.SESSIONS.get(id) as unknown as Caller);
  const all = <N extends OperationName>(
    name: N,
    input: Parameters<SessionObject["op"]>[1]
  ) =>
    Promise.all(
      copies.map((copy) =>
        value(name, () => copy.op(name, input as never) as never)
      )
    );
  let stored: StoredFork | undefined;
  try {
    await Promise.all(
      copies.map((copy, i) =>
        value("importBegin", () =>
          copy.op("importBegin", {
            sessionId: ids[i]!.toString(),
            origin: begun.origin
          })
        )
      )
    );
    for (let cursor = begun.cursor; ; ) {
      const chunk = await value("forkChunk", () =>
        source.op("forkChunk", {
          snap: begun.snap,
          cursor,
          ...(chunkBytes === undefined ? {} : { maxBytes: chunkBytes })
        })
      );
      if (chunk.parts.length > 0)
        await all("importChunk", { parts: chunk.parts });
      if (chunk.done) break;
      cursor = chunk.next;
    }
    await all("importEnd", {});
    stored = {
      source: begun.origin.source,
      seq: begun.origin.seq,
      copied: { rows: begun.rows, bytes: begun.bytes },
      session_ids: ids.map(String)
    };
  } catch (error) {
    await Promise.allSettled(copies.map((copy) => copy.op("importAbort", {})));
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
        key
      )
    ]);
  }
  return answer(env, base, stored);
};
