/** @module The Idempotency-Key header: validated, scoped to a route, bound to the hash of the validated body. */

import type { Context } from "hono";
import { RoostError } from "../errors";
import { type IdempotencyKey, requestHash } from "../storage/idempotency";
import type { AppEnv } from "./env";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";

// Visible ASCII only: the key is echoed in messages and stored as text.
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's idempotency key for `scope` (e.g. `"step"`,
 * `"tools/search"`), or undefined when the header is absent. The session id
 * scopes it further, since each session stores its own keys. `body` is the
 * route's validated body (none for a DELETE).
 */
export const idempotencyKey = async (
  c: Context<AppEnv>,
  scope: string,
  body: unknown = {}
): Promise<IdempotencyKey | undefined> => {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new RoostError(
      "invalid_request",
      "Idempotency-Key must be 1 to 255 visible ASCII characters.",
      { field: IDEMPOTENCY_HEADER }
    );
  }
  return { scope, key, hash: await requestHash(body) };
};
