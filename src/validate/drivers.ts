/**
 * @module The policies the leakage check plays each episode to its end
 * with: the random one, the oracle, and for each tool its declared
 * examples and values built from its schema. What an environment shows
 * only late (after the sixth valid guess) is reached by moves a tool
 * accepts, which random arguments seldom are.
 */

import type { OraclePolicy } from "../environment/validation";
import type { JsonValue } from "../json";
import type { OpenAITool } from "../protocol";
import { doNothing, scripted } from "./policies";

export interface Driver {
  /** How the report names it: "the oracle", "guess's examples". */
  name: string;
  /** The one tool it calls; an episode that does not offer it is not played. */
  tool?: string;
  make(task: unknown): OraclePolicy;
}

interface Schema {
  type?: string | string[];
  const?: JsonValue;
  enum?: JsonValue[];
  examples?: JsonValue[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/**
 * The `i`th value built from a schema: its examples, enum members and
 * branches in turn, else a value of its type within its bounds that
 * changes with `i` (a game that refuses a repeated move still counts it).
 */
export const built = (schema: Schema, i: number, depth = 0): JsonValue => {
  const at = <T>(items: readonly T[]): T => items[i % items.length]!;
  if (schema.const !== undefined) return schema.const;
  if (schema.examples?.length) return at(schema.examples);
  if (schema.enum?.length) return at(schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return built(at(branches), i, depth);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== "null") ?? types[0];
  const low =
    schema.minimum ??
    (schema.exclusiveMinimum === undefined ? 0 : schema.exclusiveMinimum + 1);
  const high = schema.maximum ?? low + 100;
  switch (type) {
    case "string": {
      if (schema.format === "email") return `user${i}@example.com`;
      if (schema.format === "uri" || schema.format === "url")
        return `https://example.com/${i}`;
      const min = schema.minLength ?? 1;
      const length = Math.min(Math.max(5, min), schema.maxLength ?? 5);
      return at([...LETTERS]).repeat(Math.max(length, min));
    }
    case "integer":
    case "number":
      return low + (i % (Math.floor(high - low) + 1));
    case "boolean":
      return i % 2 === 0;
    case "null":
      return null;
    case "array": {
      if (depth > 3 || schema.items === undefined) return [];
      const count = Math.max(1, schema.minItems ?? 1);
      return [...Array(count).keys()].map((k) =>
        built(schema.items!, i + k, depth + 1)
      );
    }
    default: {
      if (depth > 3) return {};
      return Object.fromEntries(
        (schema.required ?? []).map((k) => [
          k,
          built(schema.properties?.[k] ?? {}, i, depth + 1)
        ])
      );
    }
  }
};

/** Calls `tool` every step with the next arguments `argsAt` gives. */
const repeating =
  (tool: string, argsAt: (i: number) => JsonValue): (() => OraclePolicy) =>
  () => {
    let i = 0;
    return (observations, tools, history) =>
      tools.some((t) => t.function.name === tool)
        ? {
            role: "assistant",
            tool_calls: [
              {
                id: `drive_${history.length}`,
                type: "function",
                function: {
                  name: tool,
                  arguments: argsAt(i++) as Record<string, JsonValue>
                }
              }
            ]
          }
        : doNothing(observations, tools, history);
  };

/** The drivers for an environment's tools, and its oracle when it has one. */
export const leakDrivers = (
  tools: readonly OpenAITool[],
  oracle?: (task: unknown) => OraclePolicy
): Driver[] => [
  { name: "the random policy", make: () => scripted(3) },
  ...(oracle === undefined ? [] : [{ name: "the oracle", make: oracle }]),
  ...tools.flatMap(({ function: f }): Driver[] => {
    const schema = f.parameters as Schema;
    const listed = Array.isArray(schema.examples) ? schema.examples : [];
    const bySchema: Driver = {
      name: `values from ${f.name}'s schema`,
      tool: f.name,
      make: repeating(f.name, (i) => built({ ...schema, examples: [] }, i))
    };
    return listed.length === 0
      ? [bySchema]
      : [
          {
            name: `${f.name}'s examples`,
            tool: f.name,
            make: repeating(f.name, (i) => listed[i % listed.length]!)
          },
          bySchema
        ];
  })
];

/** The episodes the drivers play, in a few words for a passing row. */
export const driversPlayed = (drivers: readonly Driver[]): string => {
  const whole = drivers.filter((d) => d.tool === undefined).map((d) => d.name);
  const perTool = drivers.length - whole.length;
  const parts = [
    ...whole,
    ...(perTool > 0
      ? [
          `${perTool} that each call one tool with its examples or values built from its schema`
        ]
      : [])
  ];
  const list =
    parts.length > 1
      ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
      : parts.join("");
  return `${drivers.length} episode(s) played to their ends: ${list}`;
};
