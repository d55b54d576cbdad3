/** @module Turning copied input objects into stored ones: `_REF_ID`s, `[repeat]` markers and fingerprints. */

import type { JsonObject } from "../json";
import { isRepeatMarker, REPEAT_INFO } from "./checks";
import { fingerprint } from "./fingerprint";
import type { ObjectFingerprint, StoreBackend } from "./types";

/** Objects as they will be stored, with `fingerprints[i]` for `objects[i]`. */
export interface Stamped {
  objects: JsonObject[];
  fingerprints: (ObjectFingerprint | null)[];
}

/** `{_REF_ID, ...object}`: the id comes first, as in Elysia, and an id the object already has is kept. */
const withRefId = (object: JsonObject, id: string): JsonObject => {
  const { _REF_ID: own, ...rest } = object;
  return { _REF_ID: typeof own === "string" ? own : id, ...rest };
};

/**
 * Objects appended by `add`: each gets `${tool}_${name}_${n}_${i}` unless it
 * has an id, or becomes a `[repeat]` marker when deep-equal to an object
 * already under the key or earlier in this call.
 */
export const stampAdded = (
  backend: StoreBackend,
  tool: string,
  name: string,
  n: number,
  copies: JsonObject[],
  includeDuplicates: boolean
): Stamped => {
  const objects: JsonObject[] = [];
  const fingerprints: (ObjectFingerprint | null)[] = [];
  // The backend only knows rows already written; repeats within the call are found here.
  const thisCall = new Map<string, string>();
  copies.forEach((object, i) => {
    if (isRepeatMarker(object)) {
      objects.push(object);
      fingerprints.push(null);
      return;
    }
    const print = fingerprint(object);
    if (!includeDuplicates) {
      const original =
        thisCall.get(print.canonical) ?? backend.findRepeat(tool, name, print);
      if (original !== undefined) {
        objects.push({ object_info: REPEAT_INFO, _REF_ID: original });
        fingerprints.push(null);
        return;
      }
    }
    const stored = withRefId(object, `${tool}_${name}_${n}_${i}`);
    thisCall.set(print.canonical, String(stored._REF_ID));
    objects.push(stored);
    fingerprints.push(print);
  });
  return { objects, fingerprints };
};

/**
 * Objects stored by `replace`: ids as for `add` but no `[repeat]` check, since
 * the caller states exactly what to store. They are still indexed, so a later
 * `add` of the same object is a repeat of them.
 */
export const stampReplacement = (
  tool: string,
  name: string,
  n: number,
  copies: JsonObject[]
): Stamped => {
  const objects = copies.map((o, i) =>
    isRepeatMarker(o) ? o : withRefId(o, `${tool}_${name}_${n}_${i}`)
  );
  const fingerprints = objects.map((o) =>
    isRepeatMarker(o) ? null : fingerprint(o)
  );
  return { objects, fingerprints };
};
