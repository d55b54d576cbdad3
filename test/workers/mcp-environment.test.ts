// MCP on an environment (/v1/environments/:name/mcp): a session made per
// client and named by Mcp-Session-Id, the API key, the short life of a
// session nobody uses, and the client's session ended on DELETE.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  authed,
  call,
  createResetSession,
  json,
  send,
  withEnv
} from "./helpers";
import { type RpcAnswer, rpc } from "./mcp-helpers";
import { abort, inside, stubOf } from "./session-helpers";

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
