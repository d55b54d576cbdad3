/** @module The one way a route handler reaches its session: the verified id, an operation, the retry policy. */

import type { Context } from "hono";
import {
  IDEMPOTENCY_HEADER,
  OPERATIONS,
  type OperationInput,
  type OperationName,
  type OperationOutput
} from "../session/operations";
import type { RpcResult } from "../session/rpc";
import type { AppEnv } from "./env";
import { callSession, type SessionStub } from "./stub";

/**
 * Calls the session that `sessionAuth` admitted. `retry` says whether a
 * platform error may be retried: true for reads and keyed mutations.
 *
 * @example
 * const status = await withSession(c, (s) => s.op("status", {}), { retry: true });
 */
export const withSession = <T>(
  c: Context<AppEnv>,
  call: (stub: SessionStub, attempt: number) => Promise<RpcResult<T>>,
  options: { retry: boolean }
): Promise<T> => callSession(c.env.SESSIONS, c.get("durableId"), call, options);

/**
 * Runs operation `name` on the admitted session. A mutation that binds
 * keys gets the request's Idempotency-Key, which the operation checks and
 * binds (the same as for a socket's request); reads and flags are retried
 * after a platform error, a mutation only with a key.
 */
export const runOperation = <N extends OperationName>(
  c: Context<AppEnv>,
  name: N,
  input: OperationInput<N>
): Promise<OperationOutput<N>> => {
  const op = OPERATIONS[name];
  const key =
    "idempotency" in op ? c.req.header(IDEMPOTENCY_HEADER) : undefined;
  return withSession(c, (s) => s.op(name, input, key), {
    retry: !op.mutates || key !== undefined
  }) as Promise<OperationOutput<N>>;
};
