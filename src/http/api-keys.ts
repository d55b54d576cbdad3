/** @module API keys from ROOST_API_KEYS: any one admits to every route. */

import { listSetting, type RoostBindings } from "./env";

const encoder = new TextEncoder();

const digest = (text: string): Promise<ArrayBuffer> =>
  crypto.subtle.digest("SHA-256", encoder.encode(text));

/** Whether ROOST_API_KEYS lists at least one key. */
export const apiKeysConfigured = (env: RoostBindings): boolean =>
  listSetting(env.ROOST_API_KEYS).length > 0;

/**
 * Whether `credential` is one of the listed keys. Both sides are hashed to
 * equal-length digests and compared with `timingSafeEqual`, checking every
 * key, so the time taken says nothing about how much of a key matched.
 */
export const isApiKey = async (
  env: RoostBindings,
  credential: string
): Promise<boolean> => {
  const keys = listSetting(env.ROOST_API_KEYS);
  if (keys.length === 0) return false;
  const presented = await digest(credential);
  let found = false;
  for (const key of keys) {
    const equal = crypto.subtle.timingSafeEqual(presented, await digest(key));
    found = found || equal;
  }
  return found;
};
