/** @module Contract cases for adding to the environment store: ids, repeats, checks, copies. */

import { describe, expect, it } from "vitest";
import type { JsonObject } from "../json";
import { codeOf, refIds } from "./helpers.case";
import type { EnvironmentStore } from "./types";

const repeatOf = (id: string): JsonObject => ({
  object_info: "[repeat]",
  _REF_ID: id
});

export const addCases = (create: () => EnvironmentStore): void => {
  describe("add", () => {
    it("appends a second result of the same name to the same list", () => {
      const store = create();
      store.add("query", { name: "rows", objects: [{ a: 1 }], metadata: {} });
      const second = store.add("query", {
        name: "rows",
        objects: [{ a: 2 }],
        metadata: { page: 2 }
      });
      expect(second.index).toBe(1);
      expect(store.keys()).toEqual([
        { tool: "query", name: "rows", entries: 2, objects: 2 }
      ]);
      expect(store.find("query", "rows", 1).metadata).toEqual({ page: 2 });
    });

    it("gives each object tool_name_n_i as its _REF_ID, first in key order", () => {
      const store = create();
      store.addObjects("t", "n", [{ x: 1, y: 1 }, { x: 2 }]);
      store.addObjects("t", "n", [{ x: 3 }]);
      const [first, second] = store.find("t", "n");
      expect(first && refIds(first)).toEqual(["t_n_1_0", "t_n_1_1"]);
      expect(second && refIds(second)).toEqual(["t_n_2_0"]);
      expect(Object.keys(first?.objects[0] ?? {})).toEqual([
        "_REF_ID",
        "x",
        "y"
      ]);
    });

    it("keeps a _REF_ID the object already has", () => {
      const store = create();
      store.addObjects("t", "n", [{ _REF_ID: "mine", x: 1 }]);
      expect(store.find("t", "n", 0).objects).toEqual([
        { _REF_ID: "mine", x: 1 }
      ]);
    });

    it("never reuses an entry number after removals", () => {
      const store = create();
      store.addObjects("t", "n", [{ x: 1 }]);
      store.addObjects("t", "n", [{ x: 2 }]);
      store.remove("t", "n", -1);
      store.addObjects("t", "n", [{ x: 3 }]);
      expect(refIds(store.find("t", "n", -1))).toEqual(["t_n_3_0"]);
      store.remove("t", "n");
      store.addObjects("t", "n", [{ x: 4 }]);
      expect(refIds(store.find("t", "n", 0))).toEqual(["t_n_4_0"]);
    });

    it("stores an object already under the key as a [repeat] marker", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1 }]);
      const entry = store.addObjects("t", "n", [{ a: 1 }, { b: 2 }]);
      expect(entry.objects).toEqual([
        repeatOf("t_n_1_0"),
        { _REF_ID: "t_n_2_1", b: 2 }
      ]);
    });

    it("marks a repeat of an earlier object in the same call", () => {
      const store = create();
      const entry = store.addObjects("t", "n", [{ a: 1 }, { b: 2 }, { a: 1 }]);
      expect(entry.objects[2]).toEqual(repeatOf("t_n_1_0"));
    });

    it("compares deep-equal objects whatever their key order and _REF_ID", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1, b: { c: [1, 2], d: null } }]);
      const entry = store.addObjects("t", "n", [
        { _REF_ID: "other", b: { d: null, c: [1, 2] }, a: 1 },
        { a: 1, b: { c: [2, 1], d: null } }
      ]);
      expect(entry.objects[0]).toEqual(repeatOf("t_n_1_0"));
      expect(entry.objects[1]?.object_info).toBeUndefined();
    });

    it("checks repeats per key only", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1 }]);
      const other = store.addObjects("t", "m", [{ a: 1 }]);
      const otherTool = store.addObjects("u", "n", [{ a: 1 }]);
      expect(other.objects).toEqual([{ _REF_ID: "t_m_1_0", a: 1 }]);
      expect(otherTool.objects).toEqual([{ _REF_ID: "u_n_1_0", a: 1 }]);
    });

    it("stores duplicates in full when includeDuplicates is set", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1 }]);
      const entry = store.add(
        "t",
        { name: "n", objects: [{ a: 1 }, { a: 1 }] },
        { includeDuplicates: true }
      );
      expect(entry.objects).toEqual([
        { _REF_ID: "t_n_2_0", a: 1 },
        { _REF_ID: "t_n_2_1", a: 1 }
      ]);
    });

    it("forgets removed objects as repeat targets", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1 }]);
      store.addObjects("t", "n", [{ b: 1 }]);
      store.remove("t", "n", 0);
      expect(store.addObjects("t", "n", [{ a: 1 }]).objects).toEqual([
        { _REF_ID: "t_n_3_0", a: 1 }
      ]);
      store.remove("t", "n");
      expect(store.addObjects("t", "n", [{ b: 1 }]).objects).toEqual([
        { _REF_ID: "t_n_4_0", b: 1 }
      ]);
    });

    it("takes name and metadata from the Result, metadata {} when absent", () => {
      const store = create();
      store.add("d", { name: "r", objects: [{ x: 1 }] });
      store.add("d", { name: "r", objects: [{ x: 2 }], metadata: { q: "x" } });
      expect(store.find("d", "r").map((e) => e.metadata)).toEqual([
        {},
        { q: "x" }
      ]);
    });

    it("keeps an empty result as an entry with its metadata", () => {
      const store = create();
      const entry = store.addObjects("q", "none", [], { impossible: true });
      expect(entry).toEqual({
        tool: "q",
        name: "none",
        index: 0,
        objects: [],
        metadata: { impossible: true }
      });
      expect(store.keys()).toEqual([
        { tool: "q", name: "none", entries: 1, objects: 0 }
      ]);
      expect(store.isEmpty()).toBe(false);
    });

    it("refuses invalid tool and result names with invalid_name", () => {
      const store = create();
      for (const bad of ["", "a b", "x".repeat(65), "ü", "a/b"]) {
        expect(codeOf(() => store.addObjects(bad, "n", [{}]))).toBe(
          "invalid_name"
        );
        expect(codeOf(() => store.addObjects("t", bad, [{}]))).toBe(
          "invalid_name"
        );
      }
      expect(() => store.addObjects("a b", "n", [])).toThrow(/tool/);
      expect(() => store.addObjects("t", "a b", [])).toThrow(/result/);
      store.addObjects("x".repeat(64), "A-z_09", [{}]);
      expect(store.has("x".repeat(64), "A-z_09")).toBe(true);
      expect(store.keys()).toHaveLength(1);
    });

    it("refuses objects that are not plain JSON objects, storing nothing", () => {
      const store = create();
      const bad: unknown[] = [null, [1], 5, "x", true];
      for (const value of bad) {
        const objects = [{ ok: 1 }, value] as JsonObject[];
        expect(codeOf(() => store.addObjects("t", "n", objects))).toBe(
          "invalid_request"
        );
      }
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const withCycle = [cyclic] as JsonObject[];
      expect(codeOf(() => store.addObjects("t", "n", withCycle))).toBe(
        "invalid_request"
      );
      const meta = [1] as unknown as JsonObject;
      expect(codeOf(() => store.addObjects("t", "n", [], meta))).toBe(
        "invalid_request"
      );
      expect(store.has("t", "n")).toBe(false);
      expect(store.isEmpty()).toBe(true);
    });

    it("refuses more than 1000 objects in one result with payload_too_large", () => {
      const store = create();
      const many = Array.from({ length: 1001 }, (_, i) => ({ i }));
      expect(codeOf(() => store.addObjects("t", "n", many))).toBe(
        "payload_too_large"
      );
      expect(store.has("t", "n")).toBe(false);
      expect(store.addObjects("t", "n", many.slice(1)).objects).toHaveLength(
        1000
      );
    });

    it("stores copies: later changes to inputs or outputs do not reach it", () => {
      const store = create();
      const object: JsonObject = { a: { b: 1 } };
      const metadata: JsonObject = { m: [1] };
      const returned = store.addObjects("t", "n", [object], metadata);
      object.a = 2;
      metadata.m = "changed";
      returned.objects.push({ extra: true });
      returned.metadata.m = "changed";
      expect(store.find("t", "n", 0)).toEqual({
        objects: [{ _REF_ID: "t_n_1_0", a: { b: 1 } }],
        metadata: { m: [1] }
      });
    });

    it("stores a Date as its ISO string, as JSON does", () => {
      const store = create();
      const when = new Date(0) as unknown as JsonObject;
      store.addObjects("t", "n", [{ when }]);
      expect(store.find("t", "n", 0).objects[0]?.when).toBe(
        "1970-01-01T00:00:00.000Z"
      );
    });
  });
};
