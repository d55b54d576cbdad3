/** @module The in-memory hidden store: per-session JSON values that never reach the model or a client. */

import { RoostError } from "../errors";
import { cloneJson, type JsonValue } from "../json";
import type { HiddenStore } from "./types";

const isPlainObject = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Refuses anything JSON would silently change (`undefined` dropped, a Date
 * turned into a string, NaN into null): the SQLite backend persists JSON,
 * so a value must read back exactly as it was written, in both backends.
 */
const notJson = (path: string, what: string): RoostError =>
  new RoostError(
    "invalid_request",
    `Hidden store values must be JSON: ${path} is ${what}.`
  );

const assertJson = (value: unknown, path: string, seen: Set<object>): void => {
  if (value === null || typeof value === "string" || typeof value === "boolean")
    return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw notJson(path, String(value));
    return;
  }
  if (typeof value !== "object") {
    throw notJson(
      path,
      value === undefined ? "undefined" : `a ${typeof value}`
    );
  }
  if (seen.has(value)) throw notJson(path, "a cycle");
  if (!Array.isArray(value) && !isPlainObject(value)) {
    throw notJson(path, `a ${value.constructor?.name ?? "non-plain object"}`);
  }
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      assertJson(value[i], `${path}[${i}]`, seen);
    }
  } else {
    for (const [k, v] of Object.entries(value)) {
      assertJson(v, `${path}.${k}`, seen);
    }
  }
  seen.delete(value);
};

/**
 * @example
 * const hidden = new MemoryHiddenStore();
 * hidden.set("raw_rows", rows);
 * hidden.get<JsonObject[]>("raw_rows");
 */
export class MemoryHiddenStore implements HiddenStore {
  // A Map, so keys like `__proto__` are ordinary keys.
  readonly #values = new Map<string, JsonValue>();

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    const value = this.#values.get(key);
    return value === undefined ? undefined : (cloneJson(value) as T);
  }

  set(key: string, value: JsonValue): void {
    if (typeof key !== "string") {
      throw new RoostError("invalid_request", "Hidden store keys are strings.");
    }
    assertJson(value, "value", new Set());
    this.#values.set(key, cloneJson(value));
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  delete(key: string): boolean {
    return this.#values.delete(key);
  }

  keys(): string[] {
    return [...this.#values.keys()];
  }
}
