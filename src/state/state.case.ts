/** @module The contract every State backend pair must pass: memory now, SQLite in the session. */

import { describe, expect, it } from "vitest";
import { runBackendContract } from "./backend.case";
import {
  build,
  type CreateBackends,
  expectError,
  fixture
} from "./case-helpers";
import { replaceValues } from "./handlers";
import { runRejectionContract } from "./rejection.case";
import { State } from "./state";
import { runTranscriptContract } from "./transcript.case";

/**
 * Registers the whole contract under `label`.
 *
 * @example
 * runStateContract("memory", () => ({
 *   backend: new MemoryStateBackend(),
 *   transcript: new MemoryTranscriptBackend()
 * }));
 */
export const runStateContract = (label: string, create: CreateBackends) => {
  runBackendContract(label, create);
  runTranscriptContract(label, create);
  runRejectionContract(label, create);

  describe(`${label}: State values`, () => {
    it("starts keys with a zod default at it and leaves the rest absent", () => {
      const { state } = build(create);
      expect(state.get("count")).toBe(0);
      expect(state.get("tags")).toEqual([]);
      expect(state.has("count")).toBe(true);
      expect(state.has("name")).toBe(false);
      expect(state.get("name")).toBeUndefined();
      expect(state.get("name", "anon")).toBe("anon");
      expect(state.toJSON()).toEqual({ count: 0, tags: [] });
    });

    it("reads back what was set, also from a new State over the same storage", () => {
      const { state, backend, transcript } = build(create);
      state.set("name", "Ada");
      state.set("count", 3);
      const woken = new State(fixture, backend, transcript);
      expect(woken.get("name")).toBe("Ada");
      expect(woken.get("count")).toBe(3);
      expect(woken.get("count", 99)).toBe(3);
    });

    it("treats an empty backend as a reset: initial values come back", () => {
      const { state } = build(create);
      state.set("count", 5);
      state.set("tags", ["x"]);
      const fresh = build(create).state;
      expect(fresh.toJSON()).toEqual({ count: 0, tags: [] });
      expect(state.get("count")).toBe(5);
    });

    it("returns copies that callers may change freely", () => {
      const { state } = build(create);
      state.set("profile", { id: 1 });
      const got = state.get("profile");
      if (got) got.id = 2;
      const tags = state.get("tags");
      tags?.push("leak");
      const json = state.toJSON();
      (json.profile as { id: number }).id = 3;
      expect(state.get("profile")).toEqual({ id: 1 });
      expect(state.get("tags")).toEqual([]);
    });

    it("does not keep a reference to the value passed to set", () => {
      const { state } = build(create);
      const incoming = { id: 1, nick: "a" };
      const stored = state.set("profile", incoming);
      incoming.nick = "b";
      if (stored) stored.nick = "c";
      expect(state.get("profile")).toEqual({ id: 1, nick: "a" });
    });

    it("merges lists by default, wrapping single values", () => {
      const { state } = build(create);
      expect(state.set("tags", ["a"])).toEqual(["a"]);
      expect(state.set("tags", "b")).toEqual(["a", "b"]);
      state.set("numbers", 1);
      expect(state.set("numbers", [2, 3])).toEqual([1, 2, 3]);
    });

    it("replaces scalars, objects and nullable lists", () => {
      const { state } = build(create);
      state.set("name", "Alice");
      expect(state.set("name", "Bob")).toBe("Bob");
      state.set("maybe", [1]);
      expect(state.set("maybe", [2])).toEqual([2]);
      expect(state.set("maybe", null)).toBeNull();
      expect(state.has("maybe")).toBe(true);
    });

    it("uses a schema handler, and a per-call handler over it", () => {
      const { state } = build(create);
      state.set("sorted", [3, 1]);
      expect(state.set("sorted", [2, 4])).toEqual([1, 2, 3, 4]);
      expect(state.set("tags", ["a"], { handler: replaceValues })).toEqual([
        "a"
      ]);
      expect(state.set("tags", ["b"], { handler: replaceValues })).toEqual([
        "b"
      ]);
    });

    it("stores zod's parsed output", () => {
      const { state } = build(create);
      expect(state.set("profile", { id: 1, extra: true })).toEqual({ id: 1 });
      expect(state.get("profile")).toEqual({ id: 1 });
    });

    it("prepares a value without storing it, and put stores it", () => {
      const { state } = build(create);
      state.set("tags", ["a"]);
      const next = state.prepare("tags", "b");
      const other = state.prepare("count", 2);
      expect(next).toEqual(["a", "b"]);
      expect(state.get("tags")).toEqual(["a"]);
      expect(state.get("count")).toBe(0);
      state.put("tags", next);
      state.put("count", other);
      expect(state.toJSON()).toMatchObject({ tags: ["a", "b"], count: 2 });
    });

    it("prepare checks like set does, and put refuses unknown keys", () => {
      const { state } = build(create);
      expectError(() => state.prepare("count", "x"), "invalid_state_value");
      expectError(() => state.prepare("nope", 1), "unknown_state_key");
      expectError(() => state.put("nope", 1), "unknown_state_key");
    });

    it("lists every key holding a value in toJSON, never messages", () => {
      const { state } = build(create);
      state.set("name", "Ada");
      state.set("maybe", null);
      state.set("messages", { role: "user", content: "hi" });
      expect(state.toJSON()).toEqual({
        count: 0,
        tags: [],
        name: "Ada",
        maybe: null
      });
    });
  });
};
