/** @module The one way a route handler reaches its session: the verified id, the RPC, the retry policy. */

import type { Context } from "hono";
import type { RpcResult } from "../session/rpc";
import type { AppEnv } from "./env";
import { callSession, type SessionStub } from "./stub";

/**
 * Calls the session that `sessionAuth` admitted. `retry` says whether a
 * platform error may be retried: true for reads and keyed mutations.
 *
 * @example
 * const status = await withSession(c, (s) => s.status(), { retry: true });
 */
export const withSession = <T>(
  c: Context<AppEnv>,
  call: (stub: SessionStub, attempt: number) => Promise<RpcResult<T>>,
  options: { retry: boolean }
): Promise<T> => callSession(c.env.SESSIONS, c.get("durableId"), call, options);
