/** @module JSON value types shared by every module. */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
const skipped = (v: unknown): boolean =>
  v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * A deep copy of a JSON value, so callers never share references with a
 * store: exactly what a JSON round trip gives, but objects and arrays are
 * copied and strings shared (they are immutable), so a megabyte of text
 * is not written and parsed again. What only JSON can say (a `toJSON`, a
 * class instance, a cycle, great depth) still takes the round trip.
 */
export const cloneJson = <T>(value: T): T =>
  value === undefined
    ? value
    : ((copyJson(value, 0) ?? JSON.parse(JSON.stringify(value))) as T);

/** The copy, or undefined where the round trip must decide. */
const copyJson = (value: unknown, depth: number): unknown => {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // As JSON writes them: no -0, and NaN or Infinity become null.
      return Number.isFinite(value) ? value + 0 : null;
    case "object":
      break;
    default:
      return undefined;
  }
  if (depth > 64 || "toJSON" in (value as object)) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      if (skipped(item)) {
        out.push(null);
        continue;
      }
      const copied = copyJson(item, depth + 1);
      if (copied === undefined) return undefined;
      out.push(copied);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value as object)) {
    const item = (value as Record<string, unknown>)[key];
    if (skipped(item)) continue;
    const copied = copyJson(item, depth + 1);
    if (copied === undefined) return undefined;
    // Defined, never assigned: "__proto__" is a key like any other, as JSON.parse makes it.
    Object.defineProperty(out, key, {
      value: copied,
      enumerable: true,
      writable: true,
      configurable: true
    });
  }
  return out;
};

/**
 * Canonical JSON: object keys sorted at every level, so two deep-equal values
 * have the same text whatever order their keys were written in.
 */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v as object).sort()) {
      sorted[k] = (v as Record<string, unknown>)[k];
    }
    return sorted;
  });

const encoder = new TextEncoder();
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * Byte length of a string as UTF-8, the unit every size limit is stated
 * in. ASCII text (nearly all JSON) is its length; only other text is encoded.
 */
export const utf8Length = (text: string): number =>
  ASCII.test(text) ? text.length : encoder.encode(text).byteLength;
