/** @module Contract cases for reading the environment store: emptiness, keys, pages, recency. */

import { describe, expect, it } from "vitest";
import { codeOf } from "./helpers.case";
import type { EnvironmentStore, StoreJson } from "./types";

/** Keys a/x (2 entries), a/y (0), b/x (3), c/z (0), d/w (1), e/v (0), in that creation order. */
const spread = (create: () => EnvironmentStore): EnvironmentStore => {
  const store = create();
  store.addObjects("a", "x", [{ v: 1 }]);
  store.addObjects("a", "x", [{ v: 2 }]);
  store.addObjects("a", "y", [{ v: 0 }]);
  store.remove("a", "y");
  for (const v of [3, 4, 5]) store.addObjects("b", "x", [{ v }]);
  store.addObjects("c", "z", [{ v: 0 }]);
  store.remove("c", "z", 0);
  store.addObjects("d", "w", [{ v: 6 }]);
  store.addObjects("e", "v", [], {});
  store.remove("e", "v");
  return store;
};

/** Pages put together: lists under one key are concatenated. */
const merge = (into: StoreJson, page: StoreJson): void => {
  for (const [tool, names] of Object.entries(page)) {
    into[tool] ??= {};
    const target = into[tool];
    for (const [name, list] of Object.entries(names)) {
      target[name] = [...(target[name] ?? []), ...list];
    }
  }
};

const entryCount = (store: StoreJson): number =>
  Object.values(store).reduce(
    (n, names) => n + Object.values(names).reduce((m, l) => m + l.length, 0),
    0
  );

export const readCases = (create: () => EnvironmentStore): void => {
  describe("isEmpty, has and keys", () => {
    it("is empty until an entry is stored and again once lists are emptied", () => {
      const store = create();
      expect(store.isEmpty()).toBe(true);
      store.addObjects("t", "n", [{ a: 1 }]);
      expect(store.isEmpty()).toBe(false);
      store.remove("t", "n", 0);
      expect(store.isEmpty()).toBe(true);
      expect(store.has("t", "n")).toBe(true);
    });

    it("lists keys in creation order with kept counts", () => {
      const store = spread(create);
      expect(
        store.keys().map((k) => `${k.tool}/${k.name}:${k.entries}`)
      ).toEqual(["a/x:2", "a/y:0", "b/x:3", "c/z:0", "d/w:1", "e/v:0"]);
      expect(store.has("b", "x")).toBe(true);
      expect(store.has("b", "y")).toBe(false);
      expect(store.has("x", "b")).toBe(false);
    });
  });

  describe("page", () => {
    it("walks every entry in key order with cursors until exhausted", () => {
      const store = spread(create);
      for (const limit of [1, 2, 3, 4, 6, 7]) {
        const all: StoreJson = {};
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = store.page({ limit, ...(cursor ? { cursor } : {}) });
          expect(entryCount(page.store)).toBeLessThanOrEqual(limit);
          if (page.nextCursor) expect(entryCount(page.store)).toBe(limit);
          merge(all, page.store);
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== undefined && pages < 20);
        expect(pages).toBe(Math.max(1, Math.ceil(6 / limit)));
        expect(all).toEqual(store.toJSON());
      }
    });

    it("returns everything without a cursor when the store is small", () => {
      const store = spread(create);
      expect(store.page()).toEqual({ store: store.toJSON() });
      expect(create().page()).toEqual({ store: {} });
    });

    it("splits a key across pages in position order", () => {
      const store = spread(create);
      const first = store.page({ limit: 3 });
      expect(first.store).toEqual({
        a: { x: store.find("a", "x"), y: [] },
        b: { x: [store.find("b", "x", 0)] }
      });
      const second = store.page({ limit: 3, cursor: first.nextCursor ?? "" });
      expect(second.store.b?.x).toEqual(store.find("b", "x").slice(1));
    });

    it("refuses a bad cursor or limit with invalid_request", () => {
      const store = spread(create);
      const forged = btoa(JSON.stringify(["nope", "x", 0])).replace(/=+$/, "");
      for (const cursor of ["", "garbage!", "e30", forged]) {
        expect(codeOf(() => store.page({ cursor }))).toBe("invalid_request");
      }
      for (const limit of [0, -1, 1.5, 1001]) {
        expect(codeOf(() => store.page({ limit }))).toBe("invalid_request");
      }
      expect(entryCount(store.page({ limit: 1000 }).store)).toBe(6);
    });
  });

  describe("recent", () => {
    it("lists entries newest first across keys, with their positions", () => {
      const store = spread(create);
      store.replace("a", "x", [{ v: 7 }], {}, 0);
      const recent = store.recent(3);
      expect(recent.map((e) => [e.tool, e.name, e.index])).toEqual([
        ["a", "x", 0],
        ["d", "w", 0],
        ["b", "x", 2]
      ]);
      expect(recent[0]?.objects).toEqual([{ _REF_ID: "a_x_3_0", v: 7 }]);
      expect(store.recent(100)).toHaveLength(6);
      expect(store.recent(0)).toEqual([]);
      expect(codeOf(() => store.recent(-1))).toBe("invalid_request");
    });
  });

  describe("toJSON", () => {
    it("is the whole store, emptied keys included", () => {
      const store = create();
      store.addObjects("q", "r", [{ a: 1 }], { m: 1 });
      store.addObjects("q", "gone", [{ b: 1 }]);
      store.remove("q", "gone");
      expect(store.toJSON()).toEqual({
        q: {
          r: [{ objects: [{ _REF_ID: "q_r_1_0", a: 1 }], metadata: { m: 1 } }],
          gone: []
        }
      });
    });
  });
  describe("locate and slice", () => {
    it("locates one entry with its position, negative indexes from the end", () => {
      const store = spread(create);
      expect(store.locate("b", "x", -1)).toMatchObject({
        tool: "b",
        name: "x",
        index: 2,
        objects: [{ v: 5 }]
      });
      expect(store.locate("b", "x", 0).index).toBe(0);
      expect(codeOf(() => store.locate("b", "x", 3))).toBe(
        "index_out_of_range"
      );
      expect(codeOf(() => store.locate("nope", "x", 0))).toBe("not_found");
    });

    it("slices one key a page at a time with the key's size", () => {
      const store = spread(create);
      const first = store.slice("b", "x", 0, 2);
      expect(first.total).toBe(3);
      expect(first.entries.map((e) => [e.index, e.objects[0]?.v])).toEqual([
        [0, 3],
        [1, 4]
      ]);
      const rest = store.slice("b", "x", 2, 2);
      expect(rest.entries.map((e) => e.index)).toEqual([2]);
      expect(store.slice("b", "x", 9, 2)).toEqual({ entries: [], total: 3 });
      expect(store.slice("a", "y", 0, 10)).toEqual({ entries: [], total: 0 });
      expect(codeOf(() => store.slice("zz", "x", 0, 1))).toBe("not_found");
    });
  });
};
