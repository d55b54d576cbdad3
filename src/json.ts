/** @module JSON value types shared by every module. */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** A deep copy of a JSON value, so callers never share references with a store. */
export const cloneJson = <T>(value: T): T =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);

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
