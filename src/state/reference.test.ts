/** @module The State examples of Haystack's documentation and its mergeLists cases, reproduced. */

import { describe, expect, it } from "vitest";
import * as z from "zod";
import { defineState, type ShapeOf } from "./define-state";
import { mergeLists, replaceValues } from "./handlers";
import { MemoryStateBackend, MemoryTranscriptBackend } from "./memory-backend";
import { State } from "./state";

const stateOf = <Types extends Record<string, z.ZodType>>(
  shape: ShapeOf<Types>
) =>
  new State(
    defineState(shape),
    new MemoryStateBackend(),
    new MemoryTranscriptBackend()
  );

describe("Haystack State documentation", () => {
  it("adds a messages key nobody defined", () => {
    const state = stateOf({ user_id: { type: z.string() } });
    expect(state.has("messages")).toBe(true);
    expect(state.get("messages", [])).toEqual([]);
  });

  it("reads with get, get with a default and has", () => {
    const state = stateOf({
      user_name: { type: z.string() },
      documents: { type: z.array(z.unknown()) },
      count: { type: z.number().int() }
    });
    // Haystack passes these as `data`; here they are written through set.
    state.set("user_name", "Alice");
    state.set("documents", []);
    state.set("count", 0);
    expect(state.get("user_name")).toBe("Alice");
    expect(state.get("documents", [])).toEqual([]);
    expect(state.has("user_name")).toBe(true);
    state.set("user_name", "Bob");
    state.set("documents", [{ title: "Doc 1", content: "Content 1" }]);
    expect(state.get("user_name")).toBe("Bob");
    expect(state.get("documents")).toEqual([
      { title: "Doc 1", content: "Content 1" }
    ]);
  });

  it("merges lists and replaces other values by default", () => {
    const state = stateOf({
      documents: { type: z.array(z.unknown()) },
      user_name: { type: z.string() },
      count: { type: z.number() }
    });
    state.set("documents", [1, 2]);
    state.set("documents", [3, 4]);
    expect(state.get("documents")).toEqual([1, 2, 3, 4]);
    state.set("user_name", "Alice");
    state.set("user_name", "Bob");
    expect(state.get("user_name")).toBe("Bob");
  });

  it("uses a custom handler that merges and sorts", () => {
    const customMerge = (current: number[] | undefined, incoming: unknown) => {
      const next = Array.isArray(incoming) ? incoming : [incoming];
      return [...(current ?? []), ...(next as number[])].sort((a, b) => a - b);
    };
    const state = stateOf({
      numbers: { type: z.array(z.number()), handler: customMerge }
    });
    state.set("numbers", [3, 1]);
    state.set("numbers", [2, 4]);
    expect(state.get("numbers")).toEqual([1, 2, 3, 4]);
  });

  it("overrides the handler for one call", () => {
    const concatenate = (current: string | undefined, incoming: unknown) =>
      current ? `${current}-${String(incoming)}` : String(incoming);
    const state = stateOf({ user_name: { type: z.string() } });
    state.set("user_name", "Alice");
    state.set("user_name", "Bob", { handler: concatenate });
    expect(state.get("user_name")).toBe("Alice-Bob");
  });
});

describe("Haystack merge_lists and replace_values", () => {
  it.each([
    [null, [1], [1]],
    [undefined, [1], [1]],
    [[1, 2], 3, [1, 2, 3]],
    [1, 2, [1, 2]],
    [1, [2, 3], [1, 2, 3]],
    [null, null, [null]],
    [[[1, 2]], [3], [[1, 2], 3]]
  ])("mergeLists(%j, %j) is %j", (current, incoming, expected) => {
    expect(mergeLists(current, incoming)).toEqual(expected);
  });

  it("returns a new list and leaves both inputs alone", () => {
    const current = [1];
    const incoming = [2];
    const merged = mergeLists(current, incoming);
    merged.push(3);
    expect(current).toEqual([1]);
    expect(incoming).toEqual([2]);
  });

  it("replaceValues returns the incoming value, null included", () => {
    expect(replaceValues("Alice", "Bob")).toBe("Bob");
    expect(replaceValues("Alice", null)).toBeNull();
  });
});
