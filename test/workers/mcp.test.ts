import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  authed,
  call,
  createResetSession,
  json,
  send,
  type TestSession,
  withEnv
} from "./helpers";
import { abort, inside, stubOf } from "./session-helpers";

interface RpcAnswer {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, unknown> & {
    tools?: { name: string; inputSchema: object }[];
    content?: { type: string; text: string }[];
    isError?: boolean;
    resources?: { uri: string; name: string }[];
    contents?: { uri: string; mimeType: string; text: string }[];
  };
  error?: { code: number; message: string; data?: unknown };
}

const rpc = (method: string, params?: object, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params ? { params } : {})
});

const post = async (s: TestSession, body: unknown) =>
  s.call("/mcp", send("POST", body));

const answer = async (s: TestSession, body: unknown) => {
  const res = await post(s, body);
  expect(res.status).toBe(200);
  return json<RpcAnswer>(res);
};

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

describe("MCP on an environment", () => {
  const envPost = (body: unknown, headers: Record<string, string> = {}) =>
    call(
      "/v1/environments/counter/mcp",
      send("POST", body, { "Content-Type": "application/json", ...headers })
    );

  it("creates and resets a session per client, identified by Mcp-Session-Id", async () => {
    const init = await envPost(
      rpc("initialize", { protocolVersion: "2025-03-26" })
    );
    expect(init.status).toBe(200);
    const mcpId = init.headers.get("Mcp-Session-Id")!;
    expect(mcpId).toMatch(/^[0-9a-f]+\.v1\./);
    expect((await json<RpcAnswer>(init)).result?.protocolVersion).toBe(
      "2025-03-26"
    );
    const headers = { "Mcp-Session-Id": mcpId };
    for (const expected of ["counter=1", "counter=2"]) {
      const res = await envPost(
        rpc("tools/call", { name: "incr", arguments: {} }),
        headers
      );
      expect((await json<RpcAnswer>(res)).result?.content?.[0]?.text).toBe(
        expected
      );
    }
    // The id and token inside are a real session's.
    const [sessionId, ...rest] = mcpId.split(".");
    const status = await call(`/v1/sessions/${sessionId}/state`, {
      headers: { Authorization: `Bearer ${rest.join(".")}` }
    });
    expect((await json<{ state: { count: number } }>(status)).state.count).toBe(
      2
    );
    // A second client gets its own session.
    const second = await envPost(rpc("initialize", {}));
    expect(second.headers.get("Mcp-Session-Id")).not.toBe(mcpId);
  });

  it("needs an API key when ROOST_API_KEYS is set, like creating a session", async () => {
    const via = withEnv({ ROOST_API_KEYS: "key-a" });
    const path = "/v1/environments/counter/mcp";
    const body = rpc("initialize", {});
    expect((await via(path, send("POST", body))).status).toBe(401);
    expect((await via(path, send("POST", body, authed("key-b")))).status).toBe(
      403
    );
    const init = await via(path, send("POST", body, authed("key-a")));
    expect(init.status).toBe(200);
    const mcpId = init.headers.get("Mcp-Session-Id")!;
    const called = await via(
      path,
      send(
        "POST",
        rpc("tools/call", { name: "incr", arguments: {} }),
        authed("key-a", { "Mcp-Session-Id": mcpId })
      )
    );
    expect((await json<RpcAnswer>(called)).result?.isError).toBe(false);
  });

  describe("a session nobody uses after initialize", () => {
    const MIN = 60_000;
    const initialized = async () => {
      const init = await envPost(rpc("initialize", {}));
      const mcpId = init.headers.get("Mcp-Session-Id")!;
      const sessionId = mcpId.split(".")[0]!;
      /** Moves the object's clock ahead and runs its alarm. */
      const later = async (ms: number) => {
        const stub = stubOf(sessionId);
        await inside(stub, (instance) => {
          instance.runtime.now = () => Date.now() + ms;
        });
        await runDurableObjectAlarm(stub.raw);
      };
      // Read inside the object: any request would count as a use.
      const exists = () =>
        inside(
          stubOf(sessionId),
          (_instance, state) =>
            state.storage.sql
              .exec("SELECT 1 FROM sqlite_master WHERE name = 'session'")
              .toArray().length > 0
        );
      return { mcpId, stub: stubOf(sessionId), later, exists };
    };

    it("is deleted after 10 minutes instead of 24 hours", async () => {
      const s = await initialized();
      await s.later(5 * MIN);
      expect(await s.exists()).toBe(true);
      await s.later(11 * MIN);
      expect(await s.exists()).toBe(false);
    });

    it("gets the full idle TTL once a later request uses it, even across an abort", async () => {
      const s = await initialized();
      const listed = await envPost(rpc("tools/list"), {
        "Mcp-Session-Id": s.mcpId
      });
      expect(listed.status).toBe(200);
      await abort(s.stub);
      await s.later(11 * MIN);
      expect(await s.exists()).toBe(true);
      await s.later(25 * 60 * MIN);
      expect(await s.exists()).toBe(false);
    });

    it("does not shorten the life of sessions created over HTTP", async () => {
      const plain = await createResetSession();
      const stub = stubOf(plain.session_id);
      await inside(stub, (instance) => {
        instance.runtime.now = () => Date.now() + 11 * MIN;
      });
      await runDurableObjectAlarm(stub.raw);
      expect((await stub.status()).ok).toBe(true);
    });
  });

  it("refuses a missing or forged Mcp-Session-Id", async () => {
    const missing = await envPost(rpc("tools/list"));
    expect(missing.status).toBe(400);
    const init = await envPost(rpc("initialize", {}));
    const mcpId = init.headers.get("Mcp-Session-Id")!;
    const forged = `${mcpId.slice(0, -2)}xx`;
    const res = await envPost(rpc("tools/list"), { "Mcp-Session-Id": forged });
    expect(res.status).toBe(404);
    expect((await json<RpcAnswer>(res)).error?.code).toBe(-32600);
    // A deleted session's id stops working: the client initializes again.
    const [sessionId, ...rest] = mcpId.split(".");
    await call(`/v1/sessions/${sessionId}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${rest.join(".")}` }
    });
    const ended = await envPost(rpc("tools/list"), { "Mcp-Session-Id": mcpId });
    expect(ended.status).toBe(404);
    expect((await json<RpcAnswer>(ended)).error?.code).toBe(-32600);
    const unknownEnv = await call(
      "/v1/environments/nothing-here/mcp",
      send("POST", rpc("initialize", {}))
    );
    expect(unknownEnv.status).toBe(404);
  });

  it("checks Mcp-Session-Id on notifications too", async () => {
    const note = { jsonrpc: "2.0", method: "notifications/initialized" };
    expect((await envPost(note)).status).toBe(400);
    expect((await envPost(note, { "Mcp-Session-Id": "ab.cd" })).status).toBe(
      404
    );
    const init = await envPost(rpc("initialize", {}));
    const mcpId = init.headers.get("Mcp-Session-Id")!;
    expect((await envPost(note, { "Mcp-Session-Id": mcpId })).status).toBe(202);
  });

  it("ends the client's Roost session on DELETE", async () => {
    const path = "/v1/environments/counter/mcp";
    const get = await call(path);
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST, DELETE");
    expect((await call(path, { method: "DELETE" })).status).toBe(400);
    const init = await envPost(rpc("initialize", {}));
    const mcpId = init.headers.get("Mcp-Session-Id")!;
    const headers = { "Mcp-Session-Id": mcpId };
    const ended = await call(path, { method: "DELETE", headers });
    expect(ended.status).toBe(204);
    const [sessionId, ...rest] = mcpId.split(".");
    const status = await call(`/v1/sessions/${sessionId}`, {
      headers: { Authorization: `Bearer ${rest.join(".")}` }
    });
    expect(status.status).toBe(404);
    expect((await envPost(rpc("ping"), headers)).status).toBe(404);
    expect((await call(path, { method: "DELETE", headers })).status).toBe(404);
  });

  it("answers initialize with a JSON-RPC error when the environment needs a task", async () => {
    const init = await call(
      "/v1/environments/picky/mcp",
      send("POST", rpc("initialize", {}, "i1"))
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("Mcp-Session-Id")).toBeNull();
    expect(await json<RpcAnswer>(init)).toMatchObject({
      jsonrpc: "2.0",
      id: "i1",
      error: { code: -32602, data: { code: "invalid_request" } }
    });
  });
});
