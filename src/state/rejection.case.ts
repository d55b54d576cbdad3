/** @module Contract of rejected writes: each says which key and why, and changes nothing. */

import { describe, expect, it } from "vitest";
import { build, type CreateBackends, expectError } from "./case-helpers";

export const runRejectionContract = (label: string, create: CreateBackends) => {
  describe(`${label}: State rejected writes`, () => {
    it("rejects keys outside the schema on get and set, and has() is false", () => {
      const { state, backend } = build(create);
      expectError(() => state.get("nope" as "count"), "unknown_state_key");
      const error = expectError(
        () => state.set("nope" as "count", 1),
        "unknown_state_key"
      );
      expect(error.message).toContain("nope");
      expect(state.has("nope")).toBe(false);
      expect(backend.has("nope")).toBe(false);
    });

    it("rejects a merged value its type refuses, naming the key, and keeps the old one", () => {
      const { state } = build(create);
      state.set("tags", ["a"]);
      const error = expectError(
        () => state.set("tags", 5),
        "invalid_state_value"
      );
      expect(error.message.startsWith("tags: ")).toBe(true);
      expect(error.details).toMatchObject({ key: "tags" });
      expect(state.get("tags")).toEqual(["a"]);
      expectError(() => state.set("count", 1.5), "invalid_state_value");
      expect(state.get("count")).toBe(0);
    });

    it("refuses values that are not JSON and stores nothing", () => {
      const { state } = build(create);
      const cases: unknown[] = [
        undefined,
        () => 1,
        10n,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        new Date(0),
        new Map(),
        [1, undefined],
        { nested: { fn: () => 1 } }
      ];
      for (const value of cases) {
        expectError(() => state.set("anything", value), "invalid_state_value");
      }
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expectError(() => state.set("anything", cyclic), "invalid_state_value");
      expect(state.has("anything")).toBe(false);
    });

    it("refuses a handler that returns undefined instead of applying a default", () => {
      const { state } = build(create);
      state.set("count", 4);
      expectError(
        () => state.set("count", 1, { handler: () => undefined as never }),
        "invalid_state_value"
      );
      expect(state.get("count")).toBe(4);
    });

    it("turns a throwing handler into invalid_state_value and changes nothing", () => {
      const { state } = build(create);
      state.set("numbers", [1]);
      const error = expectError(
        () =>
          state.set("numbers", 2, {
            handler: (current) => {
              current?.push(99);
              throw new Error("boom");
            }
          }),
        "invalid_state_value"
      );
      expect(error.message).toContain("boom");
      expect(state.get("numbers")).toEqual([1]);
    });

    it("hands the handler copies, so mutating then failing changes nothing", () => {
      const { state } = build(create);
      state.set("numbers", [1]);
      const mine = [2];
      expectError(
        () =>
          state.set("numbers", mine, {
            handler: (current, incoming) => {
              current?.push(7);
              (incoming as unknown[]).push("x");
              return [...(current ?? []), ...(incoming as number[])];
            }
          }),
        "invalid_state_value"
      );
      expect(state.get("numbers")).toEqual([1]);
      expect(mine).toEqual([2]);
    });

    it("caps a value's JSON size and keeps the old value", () => {
      const { state } = build(create, { maxValueBytes: 10 });
      expect(state.set("name", "12345678")).toBe("12345678"); // 10 bytes
      const error = expectError(
        () => state.set("name", "123456789"),
        "payload_too_large"
      );
      expect(error.details).toMatchObject({
        limit: "stateValueBytes",
        max: 10,
        key: "name",
        bytes: 11
      });
      expectError(() => state.set("name", "ééééé"), "payload_too_large");
      expect(state.get("name")).toBe("12345678");
    });

    it("caps values at 1 MiB by default", () => {
      const { state } = build(create);
      const big = "x".repeat(1024 * 1024);
      expectError(() => state.set("name", big), "payload_too_large");
      expect(state.has("name")).toBe(false);
    });
  });
};
