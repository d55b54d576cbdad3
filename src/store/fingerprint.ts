/** @module The de-duplication fingerprint of a stored object: a fast hash to index, canonical text to confirm. */

import { canonicalJson, type JsonObject } from "../json";
import type { ObjectFingerprint } from "./types";

/**
 * cyrb53: 53 bits from two 32-bit lanes, no BigInt. It only has to spread
 * keys over an index; every hit is confirmed on `canonical`, so a collision
 * costs one extra comparison and never a wrong `[repeat]`.
 */
const cyrb53 = (text: string): string => {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return value.toString(16).padStart(14, "0");
};

/**
 * The fingerprint of an object as the `[repeat]` check sees it: its
 * canonical JSON without the top-level `_REF_ID` (two copies of one row
 * with different ids are still the same row).
 *
 * @example
 * fingerprint({ _REF_ID: "q_a_1_0", b: 1, a: 2 }).canonical; // '{"a":2,"b":1}'
 */
export const fingerprint = (object: JsonObject): ObjectFingerprint => {
  const { _REF_ID: _ignored, ...rest } = object;
  const canonical = canonicalJson(rest);
  return { hash: cyrb53(canonical), canonical };
};
