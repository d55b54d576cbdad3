/** @module Contract of StateBackend and TranscriptBackend themselves, shared by every implementation. */

import { describe, expect, it } from "vitest";
import type { CreateBackends } from "./case-helpers";

export const runBackendContract = (label: string, create: CreateBackends) => {
  describe(`${label}: state backend`, () => {
    it("reads an absent key as undefined and has() false", () => {
      const { backend } = create();
      expect(backend.get("a")).toBeUndefined();
      expect(backend.has("a")).toBe(false);
      expect(backend.keys()).toEqual([]);
    });

    it("stores JSON values of every kind, null included", () => {
      const { backend } = create();
      const values = { n: 1.5, s: "é", b: false, z: null, l: [1, [2]], o: {} };
      for (const [k, v] of Object.entries(values)) backend.set(k, v);
      for (const [k, v] of Object.entries(values)) {
        expect(backend.get(k)).toEqual(v);
        expect(backend.has(k)).toBe(true);
      }
      expect(backend.keys().sort()).toEqual(Object.keys(values).sort());
    });

    it("overwrites a key without adding another", () => {
      const { backend } = create();
      backend.set("a", [1]);
      backend.set("a", { x: 2 });
      expect(backend.get("a")).toEqual({ x: 2 });
      expect(backend.keys()).toEqual(["a"]);
    });

    it("keeps its own copies of what goes in and comes out", () => {
      const { backend } = create();
      const value = { list: [1] };
      backend.set("a", value);
      value.list.push(2);
      const out = backend.get("a") as { list: number[] };
      out.list.push(3);
      expect(backend.get("a")).toEqual({ list: [1] });
    });
  });

  describe(`${label}: transcript backend`, () => {
    const user = (content: string) => ({ role: "user" as const, content });

    it("starts empty", () => {
      const { transcript } = create();
      expect(transcript.count()).toBe(0);
      expect(transcript.list(0, 10)).toEqual([]);
    });

    it("appends in order and pages by offset and limit", () => {
      const { transcript } = create();
      transcript.append([user("a"), user("b")]);
      transcript.append([user("c")]);
      expect(transcript.count()).toBe(3);
      expect(transcript.list(0, 10).map((m) => m.content)).toEqual([
        "a",
        "b",
        "c"
      ]);
      expect(transcript.list(1, 1)).toEqual([user("b")]);
      expect(transcript.list(3, 5)).toEqual([]);
    });

    it("keeps its own copies of appended and listed messages", () => {
      const { transcript } = create();
      const message = user("a");
      transcript.append([message]);
      message.content = "changed";
      const [out] = transcript.list(0, 1);
      if (out) out.content = "changed too";
      expect(transcript.list(0, 1)).toEqual([user("a")]);
    });
  });
};
