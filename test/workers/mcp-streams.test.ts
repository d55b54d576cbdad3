// What a tool call over MCP sends its client before its answer, as
// server-sent events on the call's own response: a resource the client
// subscribed to that the call changed, and nothing for one it
// unsubscribed from or never asked about; a client that takes no stream
// gets the answer alone, as JSON.
import { describe, expect, it } from "vitest";
import { createResetSession, send, type TestSession } from "./helpers";

const NOTES = "roost://environment/note/notes";

const rpc = (id: number, method: string, params: object) => ({
  jsonrpc: "2.0",
  id,
  method,
  params
});

/** The messages of an answer: its events, or its one JSON body. */
const messages = async (res: Response) => {
  const text = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream"))
    return [JSON.parse(text) as Record<string, unknown>];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
};

const mcp = (s: TestSession, body: unknown, stream = true) =>
  s.call(
    "/mcp",
    send("POST", body, {
      "Content-Type": "application/json",
      Accept: stream
        ? "application/json, text/event-stream"
        : "application/json"
    })
  );

const note = (s: TestSession, id: number, stream = true) =>
  mcp(
    s,
    rpc(id, "tools/call", { name: "note", arguments: { text: "a" } }),
    stream
  );

describe("a tool call's stream over MCP", () => {
  it("tells a subscribed client the store key its call changed, before the answer, and stops once it unsubscribes", async () => {
    const s = await createResetSession({ environment: "lab" });
    await mcp(
      s,
      rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })
    );
    expect(
      await messages(
        await mcp(s, rpc(2, "resources/subscribe", { uri: NOTES }))
      )
    ).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
    const first = await messages(await note(s, 3));
    expect(first.map((m) => m.method ?? m.id)).toEqual([
      "notifications/resources/updated",
      3
    ]);
    expect(first[0]?.params).toEqual({ uri: NOTES });
    // A client that takes no stream gets the answer alone.
    expect((await messages(await note(s, 4, false))).map((m) => m.id)).toEqual([
      4
    ]);
    await mcp(s, rpc(5, "resources/unsubscribe", { uri: NOTES }));
    const after = await messages(await note(s, 6));
    expect(after.map((m) => m.method ?? m.id)).toEqual([6]);
  });
});
