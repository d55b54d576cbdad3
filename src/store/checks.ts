/** @module Input checks shared by the environment store's methods: names, objects, indexes. */

import { RoostError } from "../errors";
import { cloneJson, type JsonObject } from "../json";
import { NAME_RE } from "../names";

/** What a repeated object is stored as, pointing at the first copy's `_REF_ID`. */
export const REPEAT_INFO = "[repeat]";

export const assertName = (kind: "tool" | "result", value: unknown): void => {
  if (typeof value !== "string" || !NAME_RE.test(value)) {
    throw new RoostError(
      "invalid_name",
      `Invalid ${kind} name ${JSON.stringify(value) ?? String(value)}: use 1 to 64 letters, digits, "_" or "-".`
    );
  }
};

const isObjectLike = (v: unknown): v is object =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A JSON copy of a plain object. Serialising is the copy and the check at
 * once: dates become ISO strings (as Elysia stores them), while cycles and
 * BigInts are refused instead of half-stored.
 */
export const copyJsonObject = (value: unknown, what: string): JsonObject => {
  if (!isObjectLike(value)) {
    throw new RoostError(
      "invalid_request",
      `${what} must be a JSON object, not ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}.`
    );
  }
  let copy: unknown;
  try {
    copy = cloneJson(value);
  } catch {
    throw new RoostError(
      "invalid_request",
      `${what} is not JSON-serialisable (a cycle or a BigInt?).`
    );
  }
  if (!isObjectLike(copy)) {
    throw new RoostError(
      "invalid_request",
      `${what} must be a plain JSON object.`
    );
  }
  return copy as JsonObject;
};

/** Copies a list of objects, refusing non-objects, a bad `_REF_ID` and too many objects. */
export const copyObjects = (objects: unknown, max: number): JsonObject[] => {
  if (!Array.isArray(objects)) {
    throw new RoostError("invalid_request", "objects must be an array.");
  }
  if (objects.length > max) {
    throw new RoostError(
      "payload_too_large",
      `${objects.length} objects in one result; the limit is ${max}. Split them over several results.`,
      { limit: "objectsPerResult", max, count: objects.length }
    );
  }
  return objects.map((object, i) => {
    const copy = copyJsonObject(object, `objects[${i}]`);
    const ref = copy._REF_ID;
    if (ref !== undefined && (typeof ref !== "string" || ref === "")) {
      throw new RoostError(
        "invalid_request",
        `objects[${i}]._REF_ID must be a non-empty string.`
      );
    }
    return copy;
  });
};

/** A marker taken out of the store and given back is kept as it is, never re-indexed as data. */
export const isRepeatMarker = (object: JsonObject): boolean => {
  const keys = Object.keys(object);
  return (
    keys.length === 2 &&
    object.object_info === REPEAT_INFO &&
    typeof object._REF_ID === "string"
  );
};

/** A Python-style index (negative counts from the end) as a position, or `index_out_of_range`. */
export const resolveIndex = (
  index: number,
  length: number,
  where: string
): number => {
  if (!Number.isInteger(index)) {
    throw new RoostError(
      "invalid_request",
      `Index ${index} under ${where} must be an integer.`
    );
  }
  const position = index < 0 ? length + index : index;
  if (position < 0 || position >= length) {
    throw new RoostError(
      "index_out_of_range",
      `Index ${index} is out of range under ${where}, which has ${length} entr${length === 1 ? "y" : "ies"}.`,
      { index, length }
    );
  }
  return position;
};
