/** @module JSON values as zod schemas, and the depth and string-size checks every input passes. */

import { z } from "zod";
import type { ErrorBody } from "../errors";
import type { JsonObject, JsonValue } from "../json";
import { utf8Length } from "../json";
import type { Limits } from "./limits";

/**
 * Any JSON value. Rejects what `JSON.stringify` would drop or change:
 * `undefined`, functions, NaN and ±Infinity, Dates and other class instances.
 */
export const JsonValueSchema: z.ZodType<JsonValue, JsonValue> = z
  .lazy(() =>
    z.union(
      [
        z.string(),
        z.number(),
        z.boolean(),
        z.null(),
        z.array(JsonValueSchema),
        z.record(z.string(), JsonValueSchema)
      ],
      {
        error: (issue) =>
          issue.input === undefined
            ? "Required: a JSON value (null is allowed)."
            : "Expected a JSON value (string, finite number, boolean, null, array or object)."
      }
    )
  )
  .meta({ id: "JsonValue", description: "Any JSON value." });

/** A JSON object (never an array or null). */
export const JsonObjectSchema: z.ZodType<JsonObject, JsonObject> = z
  .record(z.string(), JsonValueSchema)
  .meta({ id: "JsonObject", description: "A JSON object." });

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
