/** @module A random policy: a random tool with arguments sampled from its JSON schema, for contrast with scripted runs. */

import type { JsonValue } from "../json";
import { seededRandom } from "../protocol/task-signal";
import { callTool, type Policy } from "./policy";

interface Schema {
  type?: string | string[];
  enum?: JsonValue[];
  const?: JsonValue;
  default?: JsonValue;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
}

// Seeded with the sampler's generator (protocol/task-signal.ts), exported here as before.
export { seededRandom };

const WORDS = ["alpha", "frogs", "42", "3 + 4", "hello", "yes", "banana"];

const pick = <T>(random: () => number, items: readonly T[]): T | undefined =>
  items[Math.floor(random() * items.length)];

/** A value that mostly fits `schema`: required fields, enums and bounds are honoured. */
const sample = (schema: Schema, random: () => number, depth = 0): JsonValue => {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return pick(random, schema.enum) ?? null;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length)
    return sample(pick(random, branches) ?? {}, random, depth);
  const type = Array.isArray(schema.type)
    ? pick(random, schema.type)
    : schema.type;
  const low = schema.minimum ?? 0;
  const high = schema.maximum ?? Math.max(low, 100);
  switch (type) {
    case "string":
      return pick(random, WORDS) ?? "";
    case "integer":
      return low + Math.floor(random() * (high - low + 1));
    case "number":
      return Math.round((low + random() * (high - low)) * 100) / 100;
    case "boolean":
      return random() < 0.5;
    case "array":
      return depth > 3 || !schema.items
        ? []
        : [sample(schema.items, random, depth + 1)];
    case "null":
      return null;
    default: {
      if (depth > 3) return {};
      const object: Record<string, JsonValue> = {};
      for (const name of schema.required ?? [])
        object[name] = sample(
          schema.properties?.[name] ?? {},
          random,
          depth + 1
        );
      return object;
    }
  }
};

/**
 * Calls one tool chosen at random with sampled arguments each step.
 *
 * @example
 * await rollout({ baseUrl, environment: "calculator", policy: randomPolicy({ seed: 1 }), episodes: 50 });
 */
export const randomPolicy = (
  options: { seed?: number; random?: () => number } = {}
): Policy => {
  const random =
    options.random ??
    (options.seed === undefined ? Math.random : seededRandom(options.seed));
  return (_observations, tools, history) => {
    const tool = pick(random, tools);
    if (!tool) throw new Error("The environment offers no tools.");
    const args = sample(tool.function.parameters as Schema, random);
    return callTool(
      `call_${history.length}`,
      tool.function.name,
      typeof args === "object" && args !== null && !Array.isArray(args)
        ? args
        : {}
    );
  };
};
