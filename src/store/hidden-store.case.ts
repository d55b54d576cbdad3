/** @module The contract every hidden store must pass, whatever its backend. */

import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "../json";
import { codeOf } from "./helpers.case";
import type { HiddenStore } from "./types";

/**
 * Registers the hidden store contract. `create` must return a fresh, empty
 * store on every call.
 *
 * @example
 * runHiddenStoreContract("memory", () => new MemoryHiddenStore());
 */
export const runHiddenStoreContract = (
  label: string,
  create: () => HiddenStore
): void => {
  describe(`HiddenStore (${label})`, () => {
    it("reads back every kind of JSON value exactly", () => {
      const store = create();
      const values: JsonValue[] = [
        null,
        0,
        -1.5,
        "",
        "ünïcode ✓",
        false,
        true,
        [],
        {},
        { nested: [1, { deep: [null, "x"] }], n: 2 }
      ];
      values.forEach((value, i) => {
        store.set(`k${i}`, value);
      });
      values.forEach((value, i) => {
        expect(store.has(`k${i}`)).toBe(true);
        expect(store.get(`k${i}`)).toEqual(value);
      });
    });

    it("returns undefined and false for a missing key", () => {
      const store = create();
      expect(store.get("missing")).toBeUndefined();
      expect(store.has("missing")).toBe(false);
      expect(store.delete("missing")).toBe(false);
      expect(store.keys()).toEqual([]);
    });

    it("overwrites, deletes and lists keys", () => {
      const store = create();
      store.set("a", 1);
      store.set("b", 2);
      store.set("a", 3);
      expect(store.get("a")).toBe(3);
      expect([...store.keys()].sort()).toEqual(["a", "b"]);
      expect(store.delete("a")).toBe(true);
      expect(store.has("a")).toBe(false);
      expect(store.get("a")).toBeUndefined();
      expect(store.keys()).toEqual(["b"]);
    });

    it("keeps copies: changing what was set or read does not change it", () => {
      const store = create();
      const value: JsonObject = { list: [1, 2], inner: { x: 1 } };
      store.set("v", value);
      value.list = [];
      const read = store.get<JsonObject>("v");
      if (read) read.inner = "changed";
      expect(store.get("v")).toEqual({ list: [1, 2], inner: { x: 1 } });
    });

    it("refuses values JSON cannot hold exactly, keeping the old value", () => {
      const store = create();
      store.set("k", "old");
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const bad: unknown[] = [
        undefined,
        () => 1,
        Symbol("s"),
        10n,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        new Date(0),
        new Map(),
        { ok: 1, nested: { missing: undefined } },
        [1, () => 2],
        cyclic
      ];
      for (const value of bad) {
        expect(codeOf(() => store.set("k", value as JsonValue))).toBe(
          "invalid_request"
        );
      }
      expect(store.get("k")).toBe("old");
      expect(codeOf(() => store.set("fresh", undefined as never))).toBe(
        "invalid_request"
      );
      expect(store.has("fresh")).toBe(false);
    });

    it("allows the same object twice in one value (shared, not cyclic)", () => {
      const store = create();
      const shared = { s: 1 };
      store.set("k", { a: shared, b: shared });
      expect(store.get("k")).toEqual({ a: { s: 1 }, b: { s: 1 } });
    });

    it("treats __proto__ and constructor as ordinary keys", () => {
      const store = create();
      store.set("__proto__", { polluted: true });
      store.set("constructor", 1);
      expect(store.get("__proto__")).toEqual({ polluted: true });
      expect(store.get("constructor")).toBe(1);
      expect(store.has("toString")).toBe(false);
      expect(store.get("toString")).toBeUndefined();
      expect([...store.keys()].sort()).toEqual(["__proto__", "constructor"]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
};
