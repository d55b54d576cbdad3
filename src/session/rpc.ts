/** @module The shape of answers across the worker → Durable Object RPC boundary. */

import { type ErrorBody, RoostError } from "../errors";

/**
 * Expected failures travel as values: RPC keeps only a thrown error's
 * message, so a code thrown in the object would arrive as a bare Error.
 */
export type RpcResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: ErrorBody };

export const settle = async <T>(
  fn: () => T | Promise<T>
): Promise<RpcResult<T>> => {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (error instanceof RoostError)
      return { ok: false, error: error.toBody() };
    throw error;
  }
};
