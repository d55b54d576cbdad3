import { describe, expect, it } from "vitest";
import { action, createResetSession, errorOf, json, send } from "./helpers";

describe("/v1/sessions/:id/state, /messages and /frame", () => {
  it("reads state without messages and patches a key with its handler", async () => {
    const session = await createResetSession({ environment: "lab" });
    const read = await json<{ state: Record<string, unknown> }>(
      await session.call("/state")
    );
    expect(read.state).toMatchObject({ count: 0, notes: [] });
    expect(read.state).not.toHaveProperty("messages");
    const merged = await session.call(
      "/state",
      send("PATCH", { key: "notes", value: "a" })
    );
    expect(await json(merged)).toEqual({ key: "notes", value: ["a"] });
    const replaced = await session.call(
      "/state",
      send("PATCH", { key: "notes", value: ["b"], handler: "replace" })
    );
    expect(await json(replaced)).toEqual({ key: "notes", value: ["b"] });
  });

  it("answers an unknown key with 400 unknown_state_key and a wrong type with 400 invalid_state_value", async () => {
    const session = await createResetSession({ environment: "lab" });
    const unknown = await session.call(
      "/state",
      send("PATCH", { key: "nope", value: 1 })
    );
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).code).toBe("unknown_state_key");
    const wrong = await session.call(
      "/state",
      send("PATCH", { key: "count", value: "ten" })
    );
    expect(wrong.status).toBe(400);
    expect((await errorOf(wrong)).code).toBe("invalid_state_value");
    const handler = await session.call(
      "/state",
      send("PATCH", { key: "count", value: 1, handler: "sum" })
    );
    expect(handler.status).toBe(400);
    expect((await errorOf(handler)).message).toContain("handler");
    expect(
      (await json<{ state: { count: number } }>(await session.call("/state")))
        .state.count
    ).toBe(0);
  });

  it("pages the transcript", async () => {
    const session = await createResetSession({ environment: "lab" });
    await session.call("/step", send("POST", action("bump")));
    const all = await json<{ messages: { role: string }[] }>(
      await session.call("/messages")
    );
    expect(all.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool"
    ]);
    const first = await json<{ messages: unknown[]; next_cursor: string }>(
      await session.call("/messages?limit=2")
    );
    expect(first.messages).toHaveLength(2);
    const rest = await json<{ messages: { role: string }[] }>(
      await session.call(`/messages?limit=2&cursor=${first.next_cursor}`)
    );
    expect(rest.messages.map((m) => m.role)).toEqual(["tool"]);
  });

  it("exports a frame", async () => {
    const session = await createResetSession({ environment: "lab" });
    const res = await session.call("/frame");
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ info: { environment: "lab" } });
  });
});
