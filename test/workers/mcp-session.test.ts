// MCP on one session (/v1/sessions/:id/mcp): initialize, tools and their
// errors, the store as resources, credentials, and the same client served
// across an abort. MCP on an environment is in mcp-environment.test.ts.

import { describe, expect, it } from "vitest";
import { HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  authed,
  call,
  createResetSession,
  json,
  send,
  withEnv
} from "./helpers";
import { answer, post, type RpcAnswer, rpc } from "./mcp-helpers";
import { abort, stubOf } from "./session-helpers";

describe("MCP on a session", () => {
  it("initializes, lists the tools and calls one, with the session's effects", async () => {
    const s = await createResetSession();
    const res = await post(
      s,
      rpc("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" }
      })
    );
    expect(res.headers.get("Mcp-Session-Id")).toBe(s.session_id);
    const init = await json<RpcAnswer>(res);
    expect(init.result).toMatchObject({
      protocolVersion: "2025-06-18",
      capabilities: { tools: {}, resources: {} },
      serverInfo: { name: "roost" }
    });
    // A version Roost does not speak gets the newest it does.
    const old = await answer(s, rpc("initialize", { protocolVersion: "1.0" }));
    expect(old.result?.protocolVersion).toBe("2025-11-25");
    const notified = await post(s, {
      jsonrpc: "2.0",
      method: "notifications/initialized"
    });
    expect(notified.status).toBe(202);
    const list = await answer(s, rpc("tools/list"));
    expect(list.result?.tools?.map((t) => t.name)).toEqual(["incr", "decr"]);
    for (let i = 1; i <= 3; i++) {
      const called = await answer(
        s,
        rpc("tools/call", { name: "incr", arguments: {} }, i)
      );
      expect(called.id).toBe(i);
      expect(called.result?.isError).toBe(false);
      expect(called.result?.content?.[0]?.text).toBe(`counter=${i}`);
    }
    const state = await json<{ state: { count: number } }>(
      await s.call("/state")
    );
    expect(state.state.count).toBe(3);
    expect((await answer(s, rpc("ping"))).result).toEqual({});
  });

  it("answers with JSON-RPC error codes", async () => {
    const s = await createResetSession();
    expect((await answer(s, rpc("nope/nope"))).error?.code).toBe(-32601);
    expect(
      (await answer(s, rpc("tools/call", { name: "missing" }))).error?.code
    ).toBe(-32602);
    expect(
      (await answer(s, rpc("tools/call", { arguments: {} }))).error?.code
    ).toBe(-32602);
    const parse = await s.call("/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json"
    });
    expect(parse.status).toBe(400);
    expect((await json<RpcAnswer>(parse)).error?.code).toBe(-32700);
    const batch = await post(s, [rpc("ping")]);
    expect(batch.status).toBe(400);
    expect((await json<RpcAnswer>(batch)).error?.code).toBe(-32600);
    const invalid = await post(s, { jsonrpc: "1.0", id: 7, method: "ping" });
    expect(invalid.status).toBe(400);
    expect(await json<RpcAnswer>(invalid)).toMatchObject({
      id: 7,
      error: { code: -32600 }
    });
    // Well-formed requests whose params are not an object: -32602, own id.
    for (const params of [[1], null, "x"]) {
      expect(
        await answer(s, { jsonrpc: "2.0", id: 3, method: "tools/call", params })
      ).toMatchObject({ id: 3, error: { code: -32602 } });
    }
    // Malformed messages are answered 400 -32600, never accepted silently.
    for (const [body, id] of [
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, null],
      [{ jsonrpc: "2.0", id: null, method: "ping" }, null],
      [{ jsonrpc: "2.0", id: 4, method: "" }, 4],
      [{ jsonrpc: "2.0", id: 5 }, 5],
      [
        { jsonrpc: "2.0", id: 6, result: {}, error: { code: 1, message: "m" } },
        6
      ],
      [{ jsonrpc: "2.0", id: 8, result: 3 }, 8],
      [{ jsonrpc: "2.0", method: 7 }, null],
      ["ping", null],
      [null, null]
    ] as const) {
      const res = await post(s, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await json<RpcAnswer>(res)).toMatchObject({
        id,
        error: { code: -32600 }
      });
    }
    // A response or a notification from the client is accepted, unanswered.
    for (const body of [
      { jsonrpc: "2.0", id: 9, result: {} },
      { jsonrpc: "2.0", id: null, error: { code: -1, message: "no" } },
      { jsonrpc: "2.0", method: "notifications/initialized" }
    ]) {
      const res = await post(s, body);
      expect(res.status).toBe(202);
      expect(await res.text()).toBe("");
    }
    const version = await s.call("/mcp", {
      ...send("POST", rpc("ping")),
      headers: {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "1999-01-01"
      }
    });
    expect(version.status).toBe(400);
  });

  it("reports a failing tool as an isError result", async () => {
    const s = await createResetSession({ environment: "lab" });
    const called = await answer(
      s,
      rpc("tools/call", { name: "faulty", arguments: { mode: "throw" } })
    );
    expect(called.result?.isError).toBe(true);
    expect(called.result?.content?.[0]?.text).toContain("tool exploded");
    const bad = await answer(
      s,
      rpc("tools/call", { name: "faulty", arguments: { mode: 3 } })
    );
    expect(bad.result?.isError).toBe(true);
  });

  it("needs the session's credentials, offers no stream, and is not ended from MCP", async () => {
    const s = await createResetSession();
    const other = await createResetSession();
    const path = `/v1/sessions/${s.session_id}/mcp`;
    expect((await call(path, send("POST", rpc("ping")))).status).toBe(401);
    expect(
      (
        await call(path, {
          ...send("POST", rpc("ping")),
          headers: {
            "Content-Type": "application/json",
            Authorization: `Bearer ${other.token}`
          }
        })
      ).status
    ).toBe(403);
    const get = await s.call("/mcp");
    expect(get.status).toBe(405);
    // DELETE is refused here too, so only POST is allowed.
    expect(get.headers.get("Allow")).toBe("POST");
    const ended = await s.call("/mcp", { method: "DELETE" });
    expect(ended.status).toBe(405);
    expect(ended.headers.get("Allow")).toBe("POST");
    expect((await answer(s, rpc("ping"))).result).toEqual({});
  });

  it("serves the environment store as resources, never the hidden store", async () => {
    const s = await createResetSession({ environment: "lab" });
    expect((await answer(s, rpc("resources/list"))).result?.resources).toEqual(
      []
    );
    await answer(
      s,
      rpc("tools/call", { name: "note", arguments: { text: "hi" } })
    );
    await answer(s, rpc("tools/call", { name: "secret", arguments: {} }));
    const listed = await answer(s, rpc("resources/list"));
    expect(listed.result?.resources).toMatchObject([
      { uri: "roost://environment/note/notes", name: "note/notes" }
    ]);
    const read = await answer(
      s,
      rpc("resources/read", { uri: "roost://environment/note/notes" })
    );
    const content = read.result?.contents?.[0];
    expect(content?.mimeType).toBe("application/json");
    expect(JSON.parse(content?.text ?? "")).toMatchObject({
      entries: [
        { tool: "note", name: "notes", index: 0, objects: [{ text: "hi" }] }
      ]
    });
    expect(JSON.stringify(listed) + JSON.stringify(read)).not.toContain(
      HIDDEN_SENTINEL
    );
    const missing = await answer(
      s,
      rpc("resources/read", { uri: "roost://environment/note/other" })
    );
    expect(missing.error?.code).toBe(-32002);
    // A URI that is neither the store's nor one the environment declares
    // names no resource.
    const foreign = await answer(
      s,
      rpc("resources/read", { uri: "file:///etc/passwd" })
    );
    expect(foreign.error).toMatchObject({
      code: -32002,
      data: { uri: "file:///etc/passwd" }
    });
    const templates = await answer(s, rpc("resources/templates/list"));
    expect(templates.result).toMatchObject({
      resourceTemplates: [{ uriTemplate: "roost://environment/{tool}/{name}" }]
    });
  });

  it("times a slow tool out as an isError result, and the session goes on", async () => {
    const s = await createResetSession({ environment: "lab" });
    const slow = await answer(
      s,
      rpc("tools/call", { name: "faulty", arguments: { mode: "slow" } })
    );
    expect(slow.result?.isError).toBe(true);
    expect(slow.result?.content?.[0]?.text).toMatch(/timed out after 20 ms/);
    const next = await answer(
      s,
      rpc("tools/call", { name: "note", arguments: { text: "after" } })
    );
    expect(next.result?.isError).toBe(false);
  });

  it("hides parameters filled from state, and fills them", async () => {
    const s = await createResetSession({
      environment: "catalog",
      task: { user_context: "a cat owner" }
    });
    const listed = await answer(s, rpc("tools/list"));
    const query = listed.result?.tools?.find((t) => t.name === "query");
    expect(query).toBeDefined();
    const { properties } = query!.inputSchema as { properties: object };
    expect(Object.keys(properties)).toContain("collection");
    expect(Object.keys(properties)).not.toContain("user_context");
    const called = await answer(
      s,
      rpc("tools/call", {
        name: "query",
        arguments: { collection: "products", limit: 1 }
      })
    );
    expect(called.result?.isError).toBe(false);
  });

  it("admits an API key as Bearer, like every session route", async () => {
    const s = await createResetSession();
    const via = withEnv({ ROOST_API_KEYS: "key-a" });
    const path = `/v1/sessions/${s.session_id}/mcp`;
    const res = await via(
      path,
      send(
        "POST",
        rpc("tools/call", { name: "incr", arguments: {} }),
        authed("key-a")
      )
    );
    expect(res.status).toBe(200);
    expect((await json<RpcAnswer>(res)).result?.content?.[0]?.text).toBe(
      "counter=1"
    );
    const wrong = await via(path, send("POST", rpc("ping"), authed("key-b")));
    expect(wrong.status).toBe(403);
  });

  it("answers 404 once the session is deleted", async () => {
    const s = await createResetSession();
    expect((await s.call("", { method: "DELETE" })).status).toBe(200);
    const res = await post(
      s,
      rpc("tools/call", { name: "incr", arguments: {} })
    );
    expect(res.status).toBe(404);
  });

  it("keeps serving the same MCP client after the object is aborted", async () => {
    const s = await createResetSession();
    await answer(s, rpc("tools/call", { name: "incr", arguments: {} }));
    await abort(stubOf(s.session_id));
    const after = await answer(
      s,
      rpc("tools/call", { name: "incr", arguments: {} })
    );
    expect(after.result?.content?.[0]?.text).toBe("counter=2");
  });
});
