/** @module Contract cases for replace, find and remove on the environment store. */

import { describe, expect, it } from "vitest";
import { codeOf, refIds } from "./helpers.case";
import type { EnvironmentStore } from "./types";

/** A store with three entries under t/n: x=1, x=2, x=3 (ids t_n_1_0 … t_n_3_0). */
const threeEntries = (create: () => EnvironmentStore): EnvironmentStore => {
  const store = create();
  for (const x of [1, 2, 3]) store.addObjects("t", "n", [{ x }], { x });
  return store;
};

export const editCases = (create: () => EnvironmentStore): void => {
  describe("replace", () => {
    it("without index makes the whole list one entry with fresh ids", () => {
      const store = threeEntries(create);
      const entry = store.replace("t", "n", [{ y: 1 }, { y: 2 }], {
        new: true
      });
      expect(entry.index).toBe(0);
      expect(store.find("t", "n")).toEqual([
        {
          objects: [
            { _REF_ID: "t_n_4_0", y: 1 },
            { _REF_ID: "t_n_4_1", y: 2 }
          ],
          metadata: { new: true }
        }
      ]);
      expect(store.keys()).toEqual([
        { tool: "t", name: "n", entries: 1, objects: 2 }
      ]);
    });

    it("with an index replaces that entry only; -1 is the newest", () => {
      const store = threeEntries(create);
      store.replace("t", "n", [{ y: 0 }], {}, 0);
      store.replace("t", "n", [{ y: 9 }], { last: true }, -1);
      const list = store.find("t", "n");
      expect(list.map((e) => e.metadata)).toEqual([
        {},
        { x: 2 },
        { last: true }
      ]);
      expect(list.map(refIds)).toEqual([["t_n_4_0"], ["t_n_2_0"], ["t_n_5_0"]]);
    });

    it("defaults metadata to {} and stores duplicates as given", () => {
      const store = threeEntries(create);
      store.replace("t", "n", [{ x: 1 }, { x: 1 }, { _REF_ID: "kept", z: 0 }]);
      expect(store.find("t", "n", 0)).toEqual({
        objects: [
          { _REF_ID: "t_n_4_0", x: 1 },
          { _REF_ID: "t_n_4_1", x: 1 },
          { _REF_ID: "kept", z: 0 }
        ],
        metadata: {}
      });
    });

    it("indexes replacement objects and forgets replaced ones for repeats", () => {
      const store = threeEntries(create);
      store.replace("t", "n", [{ y: 1 }], {}, 1);
      const entry = store.addObjects("t", "n", [{ y: 1 }, { x: 2 }, { x: 3 }]);
      expect(entry.objects).toEqual([
        { object_info: "[repeat]", _REF_ID: "t_n_4_0" },
        { _REF_ID: "t_n_5_1", x: 2 },
        { object_info: "[repeat]", _REF_ID: "t_n_3_0" }
      ]);
    });

    it("fails on a missing key or index and then changes nothing", () => {
      const store = threeEntries(create);
      const before = store.toJSON();
      expect(codeOf(() => store.replace("t", "other", [{}]))).toBe("not_found");
      expect(codeOf(() => store.replace("u", "n", [{}]))).toBe("not_found");
      expect(codeOf(() => store.replace("t", "n", [{}], {}, 3))).toBe(
        "index_out_of_range"
      );
      expect(codeOf(() => store.replace("t", "n", [{}], {}, -4))).toBe(
        "index_out_of_range"
      );
      expect(codeOf(() => store.replace("t", "bad name", [{}]))).toBe(
        "invalid_name"
      );
      expect(store.toJSON()).toEqual(before);
      expect(refIds(store.addObjects("t", "n", [{ w: 1 }]))).toEqual([
        "t_n_4_0"
      ]);
    });
  });

  describe("find", () => {
    it("returns the list, or one entry by index counting from either end", () => {
      const store = threeEntries(create);
      expect(store.find("t", "n").map((e) => e.metadata.x)).toEqual([1, 2, 3]);
      expect(store.find("t", "n", 0).metadata).toEqual({ x: 1 });
      expect(store.find("t", "n", 2).metadata).toEqual({ x: 3 });
      expect(store.find("t", "n", -1).metadata).toEqual({ x: 3 });
      expect(store.find("t", "n", -3).metadata).toEqual({ x: 1 });
    });

    it("names the error: not_found, index_out_of_range, invalid_request", () => {
      const store = threeEntries(create);
      expect(codeOf(() => store.find("t", "m"))).toBe("not_found");
      expect(codeOf(() => store.find("u", "n", 0))).toBe("not_found");
      expect(codeOf(() => store.find("t", "n", 3))).toBe("index_out_of_range");
      expect(codeOf(() => store.find("t", "n", -4))).toBe("index_out_of_range");
      expect(codeOf(() => store.find("t", "n", 0.5))).toBe("invalid_request");
      expect(() => store.find("t", "n", 3)).toThrow(/3 entries/);
    });

    it("returns copies the caller may change freely", () => {
      const store = threeEntries(create);
      const list = store.find("t", "n");
      list.pop();
      const first = list[0];
      if (first) {
        first.metadata.x = 100;
        first.objects.push({ injected: true });
      }
      store.find("t", "n", 1).objects.length = 0;
      expect(store.find("t", "n")).toEqual(threeEntries(create).toJSON().t?.n);
    });
  });

  describe("remove", () => {
    it("removes one entry by index, -1 being the newest", () => {
      const store = threeEntries(create);
      store.remove("t", "n", -1);
      expect(store.find("t", "n").map((e) => e.metadata.x)).toEqual([1, 2]);
      store.remove("t", "n", 0);
      expect(store.find("t", "n").map((e) => e.metadata.x)).toEqual([2]);
      expect(store.keys()).toEqual([
        { tool: "t", name: "n", entries: 1, objects: 1 }
      ]);
    });

    it("without index empties the list and keeps the key", () => {
      const store = threeEntries(create);
      store.remove("t", "n");
      expect(store.has("t", "n")).toBe(true);
      expect(store.find("t", "n")).toEqual([]);
      expect(store.keys()).toEqual([
        { tool: "t", name: "n", entries: 0, objects: 0 }
      ]);
      expect(store.toJSON()).toEqual({ t: { n: [] } });
    });

    it("never fails silently", () => {
      const store = threeEntries(create);
      expect(codeOf(() => store.remove("t", "m"))).toBe("not_found");
      expect(codeOf(() => store.remove("u", "n", -1))).toBe("not_found");
      expect(codeOf(() => store.remove("t", "n", 3))).toBe(
        "index_out_of_range"
      );
      store.remove("t", "n");
      expect(codeOf(() => store.remove("t", "n", -1))).toBe(
        "index_out_of_range"
      );
      expect(codeOf(() => store.find("t", "n", 0))).toBe("index_out_of_range");
    });

    it("keeps counts right through add, replace and remove", () => {
      const store = create();
      store.addObjects("a", "x", [{ i: 1 }, { i: 2 }]);
      store.addObjects("a", "x", [{ i: 1 }, { i: 3 }, { i: 4 }]);
      store.addObjects("b", "y", [{ j: 1 }]);
      const counts = () => store.keys().map((k) => [k.entries, k.objects]);
      expect(counts()).toEqual([
        [2, 5],
        [1, 1]
      ]);
      store.replace("a", "x", [{ k: 1 }], {}, 0);
      expect(counts()).toEqual([
        [2, 4],
        [1, 1]
      ]);
      store.remove("a", "x", 1);
      expect(counts()).toEqual([
        [1, 1],
        [1, 1]
      ]);
      store.replace("b", "y", [{ k: 1 }, { k: 2 }, { k: 3 }]);
      expect(counts()).toEqual([
        [1, 1],
        [1, 3]
      ]);
      store.remove("b", "y");
      expect(counts()).toEqual([
        [1, 1],
        [0, 0]
      ]);
    });
  });
};
