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
  const keys = await keyDigests(env.ROOST_API_KEYS ?? "");
  if (keys.length === 0) return false;
  const presented = await digest(credential);
  let found = false;
  for (const key of keys) {
    // No early exit: every key is compared whatever matched before.
    found = crypto.subtle.timingSafeEqual(presented, key) || found;
  }
  return found;
};

// The setting changes only with a deploy; hash its keys once per value.
// Only finished digests are kept, for the reason secrets.ts gives.
const digests = new Map<string, ArrayBuffer[]>();

const keyDigests = async (setting: string): Promise<ArrayBuffer[]> => {
  const found = digests.get(setting);
  if (found !== undefined) return found;
  const made = await Promise.all(listSetting(setting).map(digest));
  digests.set(setting, made);
  return made;
};
