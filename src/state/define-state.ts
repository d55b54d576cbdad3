/** @module `defineState()`: a checked state schema with handlers, initial values and validation. */

import * as z from "zod";
import { $ZodType } from "zod/v4/core";
import { RoostError } from "../errors";
import { cloneJson, type JsonObject, type JsonValue } from "../json";
import { NAME_RE } from "../names";
import { mergeLists, replaceValues } from "./handlers";
import { jsonProblem } from "./json-check";
import { invalidValue, issuesOf, notJson, unknownKey } from "./state-errors";
import type { Handler, StateField, StateShape } from "./types";

/** The shape `defineState` infers: each key's handler is typed by its zod type. */
export type ShapeOf<Types extends Record<string, z.ZodType>> = {
  [K in keyof Types]: StateField<Types[K]>;
};

export interface StateDefinition<Shape extends StateShape = StateShape> {
  readonly shape: Shape;
  /** The schema's keys (never `messages`, which every State has). */
  keys(): string[];
  hasKey(key: string): boolean;
  /** Each key's zod default; keys without one are absent at the start. */
  initialValues(): Record<string, JsonValue>;
  initialValue(key: string): JsonValue | undefined;
  handlerFor(key: string): Handler;
  /** Each key's input JSON Schema (`{}` when zod cannot express the type). */
  jsonSchema(): Record<string, JsonObject>;
  /** The key's parsed value as JSON, or an `invalid_state_value` error. */
  validate(key: string, value: unknown): JsonValue;
}

// Wrappers that change when a value may be missing, not what kind it is.
const WRAPPERS = new Set([
  "default",
  "prefault",
  "optional",
  "readonly",
  "nonoptional",
  "catch"
]);

/**
 * Lists merge and everything else is replaced, as in Haystack. The check
 * looks through `.default()`, `.prefault()`, `.optional()`, `.readonly()`
 * (and `.nonoptional()`, `.catch()`), so `z.array(z.string()).default([])`
 * merges. `.nullable()` arrays, unions, tuples, records and pipes replace,
 * like Haystack's `Optional[list]`: null is a value there, not an empty list.
 */
const defaultHandler = (type: z.core.$ZodType): Handler => {
  let def = type._zod.def;
  while (WRAPPERS.has(def.type) && "innerType" in def) {
    def = (def.innerType as z.core.$ZodType)._zod.def;
  }
  return def.type === "array" ? mergeLists : replaceValues;
};

const checkField = (key: string, field: unknown): StateField => {
  if (!NAME_RE.test(key)) {
    throw new RoostError(
      "invalid_name",
      `State key "${key}" must be 1 to 64 letters, digits, "_" or "-".`
    );
  }
  if (key === "messages") {
    throw new RoostError(
      "invalid_request",
      `State key "messages" is reserved: it is always the session transcript. Pick another name.`
    );
  }
  const f = field as Partial<StateField> | null;
  // From zod/v4/core, not `z.core.$ZodType`: reading a namespace inside a
  // namespace keeps all of `core` in a bundle, zod's 63 locales included.
  if (typeof f !== "object" || f === null || !(f.type instanceof $ZodType)) {
    throw new RoostError(
      "invalid_request",
      `State key "${key}" needs a zod schema as its "type".`
    );
  }
  if (f.handler !== undefined && typeof f.handler !== "function") {
    throw new RoostError(
      "invalid_request",
      `The handler of state key "${key}" must be a function or left out.`
    );
  }
  return { type: f.type, handler: f.handler ?? defaultHandler(f.type) };
};

/** A default runs only through zod; a key whose schema rejects undefined starts absent. */
const initialOf = (key: string, type: z.core.$ZodType) => {
  const parsed = z.safeParse(type, undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  const problem = jsonProblem(parsed.data, "value");
  if (problem) {
    throw new RoostError(
      "invalid_request",
      `The default of state key "${key}" is not JSON: ${problem}.`
    );
  }
  return cloneJson(parsed.data) as JsonValue;
};

/**
 * Defines typed state. A `messages` key is always there (the transcript)
 * and may not be defined here.
 *
 * @example
 * const state = defineState({
 *   count: { type: z.number().default(0) },
 *   docs: { type: z.array(z.string()).default([]) } // merged by default
 * });
 */
export const defineState = <Types extends Record<string, z.ZodType>>(
  shape: ShapeOf<Types>
): StateDefinition<ShapeOf<Types>> => {
  const fields = new Map<string, StateField>();
  const initial = new Map<string, JsonValue>();
  for (const [key, field] of Object.entries(shape)) {
    const checked = checkField(key, field);
    fields.set(key, checked);
    const value = initialOf(key, checked.type);
    if (value !== undefined) initial.set(key, value);
  }
  const keys = [...fields.keys()];
  const fieldOf = (key: string): StateField => {
    const field = fields.get(key);
    if (!field) throw unknownKey(key, keys);
    return field;
  };
  return {
    shape: Object.freeze({ ...shape }),
    keys: () => [...keys],
    hasKey: (key) => fields.has(key),
    initialValues: () => cloneJson(Object.fromEntries(initial)),
    initialValue: (key) => cloneJson(initial.get(key)),
    handlerFor: (key) => fieldOf(key).handler ?? replaceValues,
    jsonSchema: () => {
      const out: Record<string, JsonObject> = {};
      for (const [key, field] of fields) {
        try {
          const { $schema: _drop, ...schema } = z.toJSONSchema(field.type, {
            io: "input"
          }) as JsonObject;
          out[key] = schema;
        } catch {
          out[key] = {};
        }
      }
      return out;
    },
    validate: (key, value) => {
      const type = fieldOf(key).type;
      // Refused before zod, which would quietly turn undefined into a default.
      if (value === undefined) throw notJson(key, "value is undefined");
      const parsed = z.safeParse(type, value);
      if (!parsed.success) {
        throw invalidValue(key, issuesOf(parsed.error));
      }
      const problem = jsonProblem(parsed.data, "value");
      if (problem) throw notJson(key, problem);
      return cloneJson(parsed.data) as JsonValue;
    }
  };
};
