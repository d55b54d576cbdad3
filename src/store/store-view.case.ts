/** @module Contract cases for the LLM view and for names that are also JavaScript property names. */

import { describe, expect, it } from "vitest";
import { type JsonObject, utf8Length } from "../json";
import { codeOf, refIds } from "./helpers.case";
import type { EnvironmentStore } from "./types";

const NOTE = /^(\d+) older entr(?:y|ies) \((\d+) objects?\) not shown/;

/** `count` entries under t/n, each with two objects of ~100 bytes and metadata {i}. */
const filled = (create: () => EnvironmentStore, count: number) => {
  const store = create();
  for (let i = 0; i < count; i++) {
    const pad = "x".repeat(40);
    store.addObjects(
      "t",
      "n",
      [
        { i, k: 0, pad },
        { i, k: 1, pad }
      ],
      { i }
    );
  }
  return store;
};

const parse = (view: string): Record<string, unknown> =>
  JSON.parse(view) as Record<string, unknown>;

export const viewCases = (create: () => EnvironmentStore): void => {
  describe("llmView", () => {
    it("is compact JSON, newest entries and keys first", () => {
      const store = create();
      const e1 = store.addObjects("a", "x", [{ v: 1 }], { m: 1 });
      const e2 = store.addObjects("b", "y", [{ v: 2 }]);
      const e3 = store.addObjects("a", "x", [{ v: 3 }], { m: 3 });
      const entry = (e: typeof e1) => ({
        objects: e.objects,
        metadata: e.metadata
      });
      const expected = {
        a: { x: [entry(e3), entry(e1)] },
        b: { y: [entry(e2)] }
      };
      expect(store.llmView()).toBe(JSON.stringify(expected));
      expect(create().llmView()).toBe("{}");
    });

    it("stays under the cap and says how much it left out", () => {
      const store = filled(create, 20);
      for (let maxBytes = 450; maxBytes <= 3000; maxBytes += 53) {
        const view = store.llmView({ maxBytes });
        expect(utf8Length(view)).toBeLessThanOrEqual(maxBytes);
        const parsed = parse(view);
        const shown = (parsed.t as { n: { metadata: JsonObject }[] }).n;
        const note = String(parsed["[truncated]"]);
        const [, entries, objects] = NOTE.exec(note) ?? [];
        expect(shown.length).toBeGreaterThan(0);
        expect(shown.length + Number(entries)).toBe(20);
        expect(Number(objects)).toBe(2 * Number(entries));
        expect(shown.map((e) => e.metadata.i)).toEqual(
          Array.from({ length: shown.length }, (_, k) => 19 - k)
        );
      }
    });

    it("caps at 32 KB by default and shows everything that fits", () => {
      const big = filled(create, 300);
      const view = big.llmView();
      expect(utf8Length(view)).toBeLessThanOrEqual(32_768);
      expect(utf8Length(view)).toBeGreaterThan(30_000);
      expect(parse(view)["[truncated]"]).toMatch(NOTE);
      const small = filled(create, 3).llmView({ maxBytes: 100_000 });
      expect(Object.keys(parse(small))).toEqual(["t"]);
    });

    it("keeps the note even when no entry fits", () => {
      const store = filled(create, 1);
      expect(parse(store.llmView({ maxBytes: 60 }))).toEqual({
        "[truncated]": expect.stringMatching(/^1 older entry \(2 objects\)/)
      });
      expect(codeOf(() => store.llmView({ maxBytes: 0 }))).toBe(
        "invalid_request"
      );
    });
  });

  describe("names that are JavaScript property names", () => {
    it("treats __proto__ and constructor as ordinary tool and result names", () => {
      const store = create();
      store.addObjects("__proto__", "constructor", [{ a: 1 }]);
      store.addObjects("constructor", "__proto__", [{ b: 1 }]);
      store.addObjects("toString", "hasOwnProperty", [{ c: 1 }]);
      expect(refIds(store.find("__proto__", "constructor", 0))).toEqual([
        "__proto___constructor_1_0"
      ]);
      expect(store.has("constructor", "__proto__")).toBe(true);
      expect(store.has("__proto__", "__proto__")).toBe(false);
      expect(codeOf(() => store.find("__proto__", "toString"))).toBe(
        "not_found"
      );
      const json = store.toJSON();
      const wire =
        '{"__proto__":{"constructor":[{"objects":[{"_REF_ID":"__proto___constructor_1_0","a":1}],"metadata":{}}]},' +
        '"constructor":{"__proto__":[{"objects":[{"_REF_ID":"constructor___proto___1_0","b":1}],"metadata":{}}]},' +
        '"toString":{"hasOwnProperty":[{"objects":[{"_REF_ID":"toString_hasOwnProperty_1_0","c":1}],"metadata":{}}]}}';
      expect(JSON.stringify(json)).toBe(wire);
      expect(JSON.stringify(store.page({ limit: 1 }).store)).toBe(
        `${wire.slice(0, wire.indexOf(',"constructor"'))}}`
      );
      expect(JSON.stringify(store.page().store)).toBe(wire);
      expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
      expect(Object.keys(json)).toEqual([
        "__proto__",
        "constructor",
        "toString"
      ]);
      const fromWire = JSON.parse(JSON.stringify(json));
      const proto = Object.getOwnPropertyDescriptor(fromWire, "__proto__");
      expect(proto?.value.constructor[0].objects[0].a).toBe(1);
      expect(Object.keys(store.page().store)).toEqual(Object.keys(json));
      expect(Object.keys(parse(store.llmView()))).toEqual([
        "toString",
        "constructor",
        "__proto__"
      ]);
    });

    it("stores __proto__ and constructor object keys as data", () => {
      const store = create();
      const object = JSON.parse(
        '{"__proto__":{"polluted":true},"constructor":"c"}'
      ) as JsonObject;
      store.addObjects("t", "n", [object]);
      const again = store.addObjects("t", "n", [object]).objects[0];
      expect(again).toEqual({ object_info: "[repeat]", _REF_ID: "t_n_1_0" });
      const stored = store.find("t", "n", 0).objects[0] ?? {};
      expect(Object.keys(stored)).toEqual([
        "_REF_ID",
        "__proto__",
        "constructor"
      ]);
      expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
      expect(JSON.stringify(stored)).toBe(
        '{"_REF_ID":"t_n_1_0","__proto__":{"polluted":true},"constructor":"c"}'
      );
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
};
