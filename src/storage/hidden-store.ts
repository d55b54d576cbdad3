/** @module The hidden store on the session's SQLite: one JSON row per key of the episode. */

import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import type { HiddenStore } from "../store/types";
import { EpisodeRows } from "./episode-rows";
import { fitRow } from "./row-text";

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** What JSON would silently change or drop about `raw`, if anything. */
const problemOf = (raw: unknown): string | undefined => {
  switch (typeof raw) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(raw) ? undefined : String(raw);
    case "object":
      if (raw === null || Array.isArray(raw) || isPlain(raw)) return undefined;
      return `a ${raw.constructor?.name ?? "non-plain object"}`;
    default:
      return raw === undefined ? "undefined" : `a ${typeof raw}`;
  }
};

const notJson = (what: string): RoostError =>
  new RoostError(
    "invalid_request",
    `Hidden store values must be JSON: ${what}.`
  );

/**
 * Serialises and checks in one pass. The replacer sees every raw value
 * (before `toJSON`) and refuses what JSON would quietly change — undefined
 * dropped, a Date turned into a string, NaN into null — so a value reads
 * back exactly as written, as the memory store promises too.
 */
const strictJson = (value: unknown): string => {
  try {
    return JSON.stringify(
      value,
      function (this: Record<string, unknown>, key: string) {
        const raw = this[key];
        const problem = problemOf(raw);
        if (problem !== undefined) {
          throw notJson(
            `${key === "" ? "the value" : JSON.stringify(key)} is ${problem}`
          );
        }
        return raw;
      }
    );
  } catch (error) {
    if (error instanceof RoostError) throw error;
    // JSON.stringify's own TypeError: the only one left is a cycle.
    throw notJson("the value refers back to itself");
  }
};

/**
 * Values are stored as JSON text, so every read parses a fresh copy and
 * nothing a caller holds is shared with the store. Keys come back in the
 * order they were first set (rowid order), as a Map would give them.
 *
 * @example
 * const hidden = new SqliteHiddenStore(ctx.storage.sql, episode);
 * hidden.set("api_token", token);
 */
export class SqliteHiddenStore implements HiddenStore {
  readonly #rows: EpisodeRows;

  constructor(sql: SqlStorage, episode: number) {
    this.#rows = new EpisodeRows(sql, "hidden", episode);
  }

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    return this.#rows.get(key) as T | undefined;
  }

  set(key: string, value: JsonValue): void {
    if (typeof key !== "string") {
      throw new RoostError("invalid_request", "Hidden store keys are strings.");
    }
    this.#rows.put(key, fitRow(strictJson(value), "A hidden store value", key));
  }

  has(key: string): boolean {
    return this.#rows.has(key);
  }

  delete(key: string): boolean {
    return this.#rows.delete(key);
  }

  keys(): string[] {
    return this.#rows.keys();
  }
}
