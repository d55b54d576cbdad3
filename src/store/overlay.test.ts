/** @module The store and hidden-store overlays: the contracts over them, isolation, counters, `[repeat]` and cost. */

import { describe, expect, it } from "vitest";
import { createEnvironmentStore } from "./environment-store";
import { OverlayHiddenStore } from "./hidden-overlay";
import { MemoryHiddenStore } from "./hidden-store";
import { runHiddenStoreContract } from "./hidden-store.case";
import { MemoryStoreBackend } from "./memory-backend";
import { OverlayStoreBackend } from "./overlay-backend";
import { countCalls, flushEvery, STORE_WRITES } from "./overlay-helpers.case";
import { runStoreContract } from "./store.case";

const overStore = () => new OverlayStoreBackend(new MemoryStoreBackend());
const overHidden = () => new OverlayHiddenStore(new MemoryHiddenStore());

runStoreContract("overlay, never flushed", () =>
  createEnvironmentStore(overStore())
);
runStoreContract("overlay, flushed every other write", () =>
  createEnvironmentStore(flushEvery(overStore(), 2, STORE_WRITES))
);
runStoreContract("overlay, flushed every third write", () =>
  createEnvironmentStore(flushEvery(overStore(), 3, STORE_WRITES))
);
runHiddenStoreContract("overlay, never flushed", overHidden);
runHiddenStoreContract("overlay, flushed every other write", () =>
  flushEvery(overHidden(), 2, ["set", "delete"])
);

/** A memory base holding t/n with entries x=1, x=2, x=3 (ids t_n_1_0 … t_n_3_0). */
const seeded = () => {
  const base = new MemoryStoreBackend();
  const seed = createEnvironmentStore(base);
  for (const x of [1, 2, 3]) seed.addObjects("t", "n", [{ x }], { x });
  return base;
};

const WRITES = [...STORE_WRITES];

describe("OverlayStoreBackend", () => {
  it("keeps every write from the base until flush, while reading its own", () => {
    const spy = countCalls(seeded());
    const overlay = new OverlayStoreBackend(spy.backend);
    const store = createEnvironmentStore(overlay);
    store.addObjects("t", "n", [{ x: 4 }, { x: 1 }]);
    store.addObjects("u", "m", [{ y: 1 }]);
    store.replace("t", "n", [{ z: 1 }], {}, 0);
    store.remove("t", "n", -2);
    store.remove("u", "m");
    store.replace("u", "m", [{ y: 2 }]);
    expect(spy.count(...WRITES)).toBe(0);
    expect(overlay.touched).toBe(true);
    const seen = store.toJSON();
    expect(seen.t?.n?.map((e) => e.objects)).toEqual([
      [{ _REF_ID: "t_n_5_0", z: 1 }],
      [{ _REF_ID: "t_n_2_0", x: 2 }],
      [
        { _REF_ID: "t_n_4_0", x: 4 },
        { object_info: "[repeat]", _REF_ID: "t_n_1_0" }
      ]
    ]);
    overlay.flush();
    expect(spy.count(...WRITES)).toBeGreaterThan(0);
    expect(overlay.touched).toBe(false);
    expect(createEnvironmentStore(spy.backend).toJSON()).toEqual(seen);
    expect(store.toJSON()).toEqual(seen);
  });

  it("leaves the base exactly as it was after discard", () => {
    const base = seeded();
    const before = createEnvironmentStore(base).toJSON();
    const overlay = new OverlayStoreBackend(base);
    const store = createEnvironmentStore(overlay);
    store.remove("t", "n");
    store.addObjects("v", "w", [{ a: 1 }]);
    overlay.discard();
    expect(overlay.touched).toBe(false);
    expect(createEnvironmentStore(base).toJSON()).toEqual(before);
    expect(store.toJSON()).toEqual(before);
    expect(base.entryCounter("t", "n")).toBe(3);
    expect(base.entryCounter("v", "w")).toBe(0);
  });

  it("continues ids from the base's counter, reports each, and raises it at flush", () => {
    const base = seeded();
    base.setEntryCounter("t", "n", 7);
    const handed: [string, string, number][] = [];
    const overlay = new OverlayStoreBackend(base, {
      onCounter: (tool, name, value) => handed.push([tool, name, value])
    });
    const store = createEnvironmentStore(overlay);
    expect(store.addObjects("t", "n", [{ x: 9 }]).objects[0]?._REF_ID).toBe(
      "t_n_8_0"
    );
    store.replace("t", "n", [{ x: 10 }], {}, -1);
    store.addObjects("new", "key", [{}]);
    expect(handed).toEqual([
      ["t", "n", 8],
      ["t", "n", 9],
      ["new", "key", 1]
    ]);
    expect(base.entryCounter("t", "n")).toBe(7);
    expect(overlay.entryCounter("t", "n")).toBe(9);
    overlay.flush();
    expect(base.entryCounter("t", "n")).toBe(9);
    expect(base.entryCounter("new", "key")).toBe(1);
  });

  it("ignores a lower counter and leaves the base's unchanged after discard", () => {
    const base = seeded();
    const overlay = new OverlayStoreBackend(base);
    createEnvironmentStore(overlay).addObjects("t", "n", [{}]);
    overlay.setEntryCounter("t", "n", 2);
    expect(overlay.entryCounter("t", "n")).toBe(4);
    overlay.discard();
    expect(base.entryCounter("t", "n")).toBe(3);
    expect(overlay.entryCounter("t", "n")).toBe(3);
  });

  it("stops treating an object as an original once its base entry is gone", () => {
    const base = new MemoryStoreBackend();
    const seed = createEnvironmentStore(base);
    seed.addObjects("t", "n", [{ a: 1 }]);
    seed.addObjects("t", "n", [{ a: 1 }], {}, { includeDuplicates: true });
    seed.addObjects("t", "n", [{ _REF_ID: "own", b: 1 }]);
    seed.addObjects(
      "t",
      "n",
      [{ _REF_ID: "own", b: 1 }],
      {},
      {
        includeDuplicates: true
      }
    );
    const overlay = new OverlayStoreBackend(base);
    const store = createEnvironmentStore(overlay);
    const first = (o: { a: number } | { b: number }) =>
      store.addObjects("t", "n", [o]).objects[0];
    expect(first({ a: 1 })?._REF_ID).toBe("t_n_1_0");
    store.remove("t", "n", 0);
    expect(first({ a: 1 })?._REF_ID).toBe("t_n_2_0");
    store.replace("t", "n", [{ c: 1 }], {}, 0);
    // Two originals under one id: removing one leaves the other.
    store.remove("t", "n", 1);
    expect(first({ b: 1 })).toEqual({
      object_info: "[repeat]",
      _REF_ID: "own"
    });
    store.remove("t", "n", 1);
    // Every original of {a:1} is gone; the markers added since are not originals.
    expect(first({ a: 1 })?._REF_ID).toBe("t_n_9_0");
    store.remove("t", "n");
    expect(first({ b: 1 })?._REF_ID).toBe("t_n_10_0");
  });

  it("lists new entries first in recent, then live base ones at their new index", () => {
    const base = seeded();
    createEnvironmentStore(base).addObjects("u", "m", [{ y: 1 }]);
    const overlay = new OverlayStoreBackend(base);
    const store = createEnvironmentStore(overlay);
    store.remove("t", "n", 0);
    store.replace("t", "n", [{ x: 30 }], {}, -1);
    store.addObjects("u", "m", [{ y: 2 }]);
    const located = store.recent(10).map((e) => [e.tool, e.index, e.metadata]);
    expect(located).toEqual([
      ["u", 1, {}],
      ["t", 1, {}],
      ["u", 0, {}],
      ["t", 0, { x: 2 }]
    ]);
    expect(store.recent(2)).toHaveLength(2);
  });

  it("reads, adds, finds and flushes over 20 000 base objects touching a handful", () => {
    const base = new MemoryStoreBackend();
    const seed = createEnvironmentStore(base);
    for (let e = 0; e < 2000; e++) {
      const objects = Array.from({ length: 10 }, (_, i) => ({ e, i }));
      seed.addObjects("big", "list", objects, {}, { includeDuplicates: true });
    }
    expect(base.totalObjects()).toBe(20_000);
    const spy = countCalls(base);
    const overlay = new OverlayStoreBackend(spy.backend);
    const store = createEnvironmentStore(overlay);
    const added = store.addObjects("big", "list", [{ e: 5, i: 5 }, { e: -1 }]);
    expect(added.objects[0]).toEqual({
      object_info: "[repeat]",
      _REF_ID: "big_list_6_5"
    });
    expect(store.find("big", "list", -1)).toEqual({
      objects: added.objects,
      metadata: {}
    });
    expect(store.keys()[0]?.entries).toBe(2001);
    overlay.flush();
    expect(spy.count("entry", "entries")).toBe(0);
    expect(spy.objectsRead).toBe(0);

    const next = new OverlayStoreBackend(spy.backend);
    const again = createEnvironmentStore(next);
    again.replace("big", "list", [{ fresh: 1 }], {}, 1000);
    again.remove("big", "list", 0);
    again.addObjects("big", "list", [{ e: 1000, i: 0 }]);
    expect(again.find("big", "list", 999)).toEqual({
      objects: [{ _REF_ID: "big_list_2002_0", fresh: 1 }],
      metadata: {}
    });
    next.flush();
    // One read for each base entry that left, to know its originals.
    expect(spy.count("entry", "entries")).toBe(2);
    expect(spy.objectsRead).toBe(20);
    expect(base.keyInfo("big", "list")).toEqual({
      tool: "big",
      name: "list",
      entries: 2001,
      objects: 20_000 + 2 - 10 + 1 - 10 + 1
    });
  });
});

describe("OverlayHiddenStore", () => {
  it("keeps sets and deletes from the base until flush, keys in Map order", () => {
    const base = new MemoryHiddenStore();
    for (const key of ["a", "b", "c"]) base.set(key, key);
    const spy = countCalls(base);
    const hidden = new OverlayHiddenStore(spy.backend);
    hidden.set("b", "B");
    hidden.set("new", 1);
    expect(hidden.delete("a")).toBe(true);
    hidden.set("a", "again");
    expect(hidden.delete("c")).toBe(true);
    expect(hidden.delete("c")).toBe(false);
    expect(hidden.keys()).toEqual(["b", "new", "a"]);
    expect([hidden.get("a"), hidden.get("c"), hidden.has("c")]).toEqual([
      "again",
      undefined,
      false
    ]);
    expect(spy.count("set", "delete")).toBe(0);
    hidden.flush();
    expect(base.keys()).toEqual(["b", "new", "a"]);
    expect(base.get("b")).toBe("B");
    expect(hidden.touched).toBe(false);
  });
});
