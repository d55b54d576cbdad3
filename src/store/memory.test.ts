import { describe, expect, it } from "vitest";
import type { JsonObject } from "../json";
import { createEnvironmentStore } from "./environment-store";
import { fingerprint } from "./fingerprint";
import { MemoryHiddenStore } from "./hidden-store";
import { runHiddenStoreContract } from "./hidden-store.case";
import { MemoryStoreBackend } from "./memory-backend";
import { runStoreContract } from "./store.case";

runStoreContract("memory", () =>
  createEnvironmentStore(new MemoryStoreBackend())
);
runHiddenStoreContract("memory", () => new MemoryHiddenStore());

describe("fingerprint", () => {
  it("ignores key order and the top-level _REF_ID", () => {
    const a = fingerprint({ _REF_ID: "x", b: 1, a: { d: 2, c: 3 } });
    const b = fingerprint({ a: { c: 3, d: 2 }, b: 1 });
    expect(a).toEqual(b);
    expect(a.canonical).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(a.hash).toMatch(/^[0-9a-f]{14}$/);
  });

  it("tells apart objects that differ anywhere, nested _REF_IDs included", () => {
    const objects: JsonObject[] = [
      { a: 1 },
      { a: "1" },
      { a: [1] },
      { a: { _REF_ID: "x" } },
      { a: { _REF_ID: "y" } },
      { b: 1 }
    ];
    const prints = objects.map((o) => fingerprint(o).hash);
    expect(new Set(prints).size).toBe(prints.length);
  });
});

describe("MemoryStoreBackend", () => {
  it("confirms a hash hit on the canonical text", () => {
    const backend = new MemoryStoreBackend();
    backend.createKey("t", "n");
    const entry = { objects: [{ _REF_ID: "t_n_1_0", a: 1 }], metadata: {} };
    backend.append("t", "n", entry, [{ hash: "same", canonical: '{"a":1}' }]);
    expect(
      backend.findRepeat("t", "n", { hash: "same", canonical: '{"a":2}' })
    ).toBeUndefined();
    expect(
      backend.findRepeat("t", "n", { hash: "same", canonical: '{"a":1}' })
    ).toBe("t_n_1_0");
  });

  it("finds the first indexed repeat that skip does not pass over", () => {
    const backend = new MemoryStoreBackend();
    backend.createKey("t", "n");
    const print = { hash: "h", canonical: "{}" };
    for (const id of ["t_n_1_0", "t_n_2_0", "t_n_3_0"]) {
      backend.append("t", "n", { objects: [{ _REF_ID: id }], metadata: {} }, [
        print
      ]);
    }
    const seen: string[] = [];
    const found = backend.findRepeat("t", "n", print, (id) => {
      seen.push(id);
      return id !== "t_n_2_0";
    });
    expect(found).toBe("t_n_2_0");
    expect(seen).toEqual(["t_n_1_0", "t_n_2_0"]);
    expect(backend.findRepeat("t", "n", print, () => true)).toBeUndefined();
    backend.removeAt("t", "n", 0);
    expect(backend.findRepeat("t", "n", print)).toBe("t_n_2_0");
  });

  it("keeps entry counters apart from keys and never lowers them", () => {
    const backend = new MemoryStoreBackend();
    expect(backend.entryCounter("t", "n")).toBe(0);
    backend.setEntryCounter("t", "n", 5);
    backend.setEntryCounter("t", "n", 2);
    expect(backend.nextEntryNumber("t", "n")).toBe(6);
    expect(backend.keyInfo("t", "n")).toBeUndefined();
    const store = createEnvironmentStore(backend);
    expect(store.addObjects("t", "n", [{}]).objects[0]?._REF_ID).toBe(
      "t_n_7_0"
    );
  });
});
