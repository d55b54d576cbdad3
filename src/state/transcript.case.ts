/** @module Contract of the virtual `messages` key: the append-only transcript. */

import { describe, expect, it } from "vitest";
import { build, type CreateBackends, expectError } from "./case-helpers";
import { mergeLists, replaceValues } from "./handlers";

const user = (content: string) => ({ role: "user" as const, content });

export const runTranscriptContract = (
  label: string,
  create: CreateBackends
) => {
  describe(`${label}: State messages`, () => {
    it("always has messages, starting as an empty transcript", () => {
      const { state } = build(create);
      expect(state.has("messages")).toBe(true);
      expect(state.get("messages")).toEqual([]);
      expect(state.get("messages", [user("unused")])).toEqual([]);
    });

    it("appends one message or a list, in order, to the transcript backend", () => {
      const { state, transcript, backend } = build(create);
      expect(state.set("messages", user("a"))).toEqual([user("a")]);
      const added = state.set("messages", [
        { role: "assistant", content: "b" },
        user("c")
      ]);
      expect(added).toHaveLength(2);
      expect(state.get("messages")?.map((m) => m.content)).toEqual([
        "a",
        "b",
        "c"
      ]);
      expect(transcript.count()).toBe(3);
      expect(backend.has("messages")).toBe(false);
      expect(backend.keys()).not.toContain("messages");
    });

    it("stores messages as parsed, defaults filled in", () => {
      const { state } = build(create);
      state.set("messages", {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", function: { name: "f" } }]
      });
      expect(state.get("messages")).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "f", arguments: "{}" }
            }
          ]
        }
      ]);
    });

    it("rejects a batch with one bad message and appends none of it", () => {
      const { state, transcript } = build(create);
      state.set("messages", user("kept"));
      const error = expectError(
        () =>
          state.set("messages", [user("a"), { role: "robot", content: "x" }]),
        "invalid_state_value"
      );
      expect(error.message).toMatch(/^messages: message 1: /);
      expectError(
        () => state.set("messages", undefined),
        "invalid_state_value"
      );
      expect(transcript.count()).toBe(1);
    });

    it("is append-only: replacing handlers are refused, merge_lists is allowed", () => {
      const { state } = build(create);
      state.set("messages", user("a"));
      const error = expectError(
        () => state.set("messages", [user("b")], { handler: replaceValues }),
        "invalid_state_value"
      );
      expect(error.message).toContain("append-only");
      expect(state.get("messages")).toEqual([user("a")]);
      state.set("messages", user("b"), { handler: mergeLists });
      expect(state.get("messages")).toEqual([user("a"), user("b")]);
    });

    it("caps each message like a state value", () => {
      const { state } = build(create, { maxValueBytes: 64 });
      expectError(
        () => state.set("messages", [user("ok"), user("x".repeat(64))]),
        "payload_too_large"
      );
      expect(state.get("messages")).toEqual([]);
    });

    it("prepares messages without appending them; put appends", () => {
      const { state } = build(create);
      const prepared = state.prepare("messages", [user("a"), user("b")]);
      expect(state.get("messages")).toEqual([]);
      state.put("messages", prepared);
      expect(state.get("messages")).toEqual([user("a"), user("b")]);
    });

    it("returns a copy of the transcript", () => {
      const { state } = build(create);
      state.set("messages", user("a"));
      const messages = state.get("messages");
      messages?.push(user("b"));
      const first = messages?.[0];
      if (first) first.content = "changed";
      expect(state.get("messages")).toEqual([user("a")]);
    });
  });
};
