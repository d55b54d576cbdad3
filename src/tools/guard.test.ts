import { describe, expect, it } from "vitest";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import { result } from "../store/result";
import { guardWrites, HIDDEN_ACCESS, STORE_ACCESS } from "./guard";

describe("guardWrites", () => {
  it("refuses every write once revoked and keeps reads working", () => {
    let revoked = false;
    const store = guardWrites(
      createEnvironmentStore(new MemoryStoreBackend()),
      STORE_ACCESS,
      () => revoked,
      "Tool call c1 (probe)"
    );
    const hidden = guardWrites(
      new MemoryHiddenStore(),
      HIDDEN_ACCESS,
      () => revoked,
      "Tool call c1 (probe)"
    );
    store.add("probe", result({ name: "x", objects: [{ a: 1 }] }));
    hidden.set("h", 1);
    revoked = true;
    const refused =
      /Tool call c1 \(probe\) timed out; its writes after the timeout are refused/;
    expect(() =>
      store.add("probe", result({ name: "y", objects: [] }))
    ).toThrow(refused);
    expect(() => store.remove("probe", "x")).toThrow(refused);
    expect(() => hidden.set("h", 2)).toThrow(refused);
    expect(() => hidden.delete("h")).toThrow(refused);
    expect(store.find("probe", "x")).toHaveLength(1);
    expect(store.keys().map((k) => k.name)).toEqual(["x"]);
    expect(hidden.get("h")).toBe(1);
  });
});
