/** @module JSON values as zod schemas, and the depth and string-size checks every input passes. */

import * as z from "zod";
import type { ErrorBody } from "../errors";
import type { JsonObject, JsonValue } from "../json";
import { utf8Length } from "../json";
import { lazy } from "../lazy";
import type { Limits } from "./limits";

const isPlainObject = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** How deep `plainJson` looks before it leaves the answer to the walk. */
const PLAIN_DEPTH = 64;

/**
 * True when `value` is JSON within `depth` levels; false when it may not
 * be. No paths, no sets: a parsed body or frame is JSON, and this answers
 * for it in a tenth of the walk's time. A cycle runs out of depth.
 */
const plainJson = (value: unknown, depth: number): boolean => {
  if (value === null) return true;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (depth === 0) return false;
  if (Array.isArray(value)) {
    // A hole reads as undefined, which is not JSON.
    for (let i = 0; i < value.length; i++)
      if (!plainJson(value[i], depth - 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (!plainJson(record[key], depth - 1)) return false;
  return true;
};

/**
 * Where `value` stops being JSON as `JSON.stringify` would write it back
 * (`undefined`, a function, NaN or ±Infinity, a Date or other class
 * instance, a cycle), or undefined when it is JSON. Iterative, so depth
 * cannot exhaust the stack.
 */
export const findNonJson = (
  value: unknown
): { path: (string | number)[]; what: string } | undefined => {
  if (plainJson(value, PLAIN_DEPTH)) return undefined;
  type Frame = { item: unknown; path: (string | number)[]; leave?: true };
  const stack: Frame[] = [{ item: value, path: [] }];
  // Depth-first with the containers on the current path kept open: meeting
  // an open one again is a cycle; a finished one is shared (a DAG is JSON).
  const open = new Set<object>();
  const done = new Set<object>();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { item, path } = next;
    if (next.leave) {
      open.delete(item as object);
      done.add(item as object);
      continue;
    }
    if (item === null || typeof item === "string" || typeof item === "boolean")
      continue;
    if (typeof item === "number") {
      if (!Number.isFinite(item)) return { path, what: String(item) };
      continue;
    }
    if (typeof item !== "object") return { path, what: typeof item };
    if (open.has(item)) return { path, what: "a cycle" };
    if (done.has(item)) continue;
    if (!Array.isArray(item) && !isPlainObject(item)) {
      return { path, what: `a ${item.constructor?.name ?? "class instance"}` };
    }
    open.add(item);
    stack.push({ item, path, leave: true });
    const entries = Array.isArray(item)
      ? item.entries()
      : Object.entries(item as Record<string, unknown>);
    for (const [k, child] of entries) {
      stack.push({ item: child, path: [...path, k] });
    }
  }
  return undefined;
};

export const isJsonValue = (value: unknown): value is JsonValue =>
  findNonJson(value) === undefined;

const NOT_JSON =
  "Expected a JSON value (string, finite number, boolean, null, array or object)";

// Checked, never rebuilt: zod's record parser copies keys into a fresh `{}`,
// where a `__proto__` key sets the prototype instead and is lost. The input
// passes through as it came, own `__proto__` keys included. The JSON Schema
// these document is written out, since a custom check has none of its own.
const JSON_VALUE_DOC = { id: "JsonValue", description: "Any JSON value." };
const JSON_OBJECT_DOC = {
  id: "JsonObject",
  description: "A JSON object.",
  type: "object" as const,
  additionalProperties: true
};

/** Any input `outer` accepts, then checked to be JSON, naming the first field that is not. */
const checked = (outer: (value: unknown) => string | undefined) =>
  z.unknown().superRefine((value, ctx) => {
    const refused = outer(value);
    if (refused !== undefined) {
      ctx.addIssue({ code: "custom", message: refused });
      return;
    }
    const bad = findNonJson(value);
    if (bad !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: bad.path,
        message: `${NOT_JSON}, got ${bad.what}.`
      });
    }
  });

/**
 * Any JSON value. Rejects what `JSON.stringify` would drop or change:
 * `undefined`, functions, NaN and ±Infinity, Dates and other class instances.
 */
export const JsonValueSchema = lazy(
  () =>
    checked((value) =>
      value === undefined
        ? "Required: a JSON value (null is allowed)."
        : undefined
    ).meta(JSON_VALUE_DOC) as unknown as z.ZodType<JsonValue, JsonValue>
);

/** A JSON object (never an array or null). */
export const JsonObjectSchema = lazy(
  () =>
    checked((value) =>
      typeof value !== "object" || value === null || Array.isArray(value)
        ? "Expected a JSON object."
        : undefined
    ).meta(JSON_OBJECT_DOC) as unknown as z.ZodType<JsonObject, JsonObject>
);

/**
 * Checks the depth and string sizes of an already parsed JSON value, before
 * any recursive schema walks it (a deep value would otherwise exhaust the
 * stack). Iterative for the same reason. Returns the error, or undefined.
 *
 * @example
 * const error = checkJsonLimits(JSON.parse(body), limits);
 * if (error) return c.json({ error }, 413);
 */
export const checkJsonLimits = (
  value: unknown,
  limits: Pick<Limits, "jsonDepth" | "stringBytes">
): ErrorBody | undefined => {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item === "string") {
      if (stringTooLong(item, limits.stringBytes)) {
        return tooLarge(
          `A string is longer than ${limits.stringBytes} bytes.`,
          "stringBytes",
          limits.stringBytes
        );
      }
      continue;
    }
    if (item === null || typeof item !== "object") continue;
    if (depth > limits.jsonDepth) {
      return tooLarge(
        `JSON is nested deeper than ${limits.jsonDepth} levels.`,
        "jsonDepth",
        limits.jsonDepth
      );
    }
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) stack.push([child, depth + 1]);
    if (!Array.isArray(item)) {
      for (const key of Object.keys(item)) stack.push([key, depth]);
    }
  }
  return undefined;
};

// UTF-8 takes 1 to 3 bytes per UTF-16 unit, so most strings are decided
// without encoding them.
const stringTooLong = (text: string, max: number): boolean => {
  if (text.length * 3 <= max) return false;
  if (text.length > max) return true;
  return utf8Length(text) > max;
};

const tooLarge = (message: string, limit: string, max: number): ErrorBody => ({
  code: "payload_too_large",
  message,
  details: { limit, max }
});
