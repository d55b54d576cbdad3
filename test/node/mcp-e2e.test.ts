import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ListPromptsResultSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { connectSession } from "../../src/client/index";

// The official MCP client against wrangler dev: a session's tools over the
// Streamable HTTP transport, with the same effects as the HTTP API.
const base = inject("baseUrl");

const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
};

const connect = async (url: string, headers: Record<string, string> = {}) => {
  const client = new Client({ name: "roost-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers }
  });
  await client.connect(transport);
  return { client, transport };
};

/** Kills the session's object (the e2e worker's fault-injection route). */
const abortSession = async (id: string) => {
  const res = await fetch(`${base}/__e2e/sessions/${id}/abort`, {
    method: "POST"
  });
  expect(res.status).toBe(204);
};

describe("MCP with the official client", () => {
  it("lists and calls a counter session's tools, with the same effects over HTTP and the socket", async () => {
    const created = await post("/v1/sessions", { environment: "counter" });
    const id = String(created.session_id);
    const token = String(created.token);
    await post(`/v1/sessions/${id}/reset`, {}, token);
    // The Roost client's socket: it reconnects and resumes by itself when
    // the abort below closes it, so every event arrives exactly once.
    const events: { seq: number; type: string; tool?: string }[] = [];
    const statuses: string[] = [];
    const ws = connectSession({
      baseUrl: base,
      sessionId: id,
      token,
      WebSocket,
      onEvent: (e) => events.push(e as (typeof events)[number]),
      onStatus: (status) => statuses.push(status)
    });
    await expect.poll(() => ws.lastSeq).not.toBeUndefined();

    const { client, transport } = await connect(
      `${base}/v1/sessions/${id}/mcp`,
      { Authorization: `Bearer ${token}` }
    );
    const mcpSessionId = transport.sessionId;
    expect(mcpSessionId).toBe(id);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["incr", "decr"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object" });
    for (let i = 1; i <= 10; i++) {
      const result = await client.callTool({ name: "incr", arguments: {} });
      expect(result.isError).toBe(false);
      expect(result.content).toEqual([{ type: "text", text: `counter=${i}` }]);
      if (i === 5) await abortSession(id);
    }
    const state = await (
      await fetch(`${base}/v1/sessions/${id}/state`, {
        headers: { authorization: `Bearer ${token}` }
      })
    ).json();
    expect(state).toMatchObject({ state: { count: 10 } });
    // The abort after the fifth call cost the client nothing: same session.
    expect(transport.sessionId).toBe(mcpSessionId);
    await expect
      .poll(
        () =>
          events.filter((e) => e.type === "tool.finished" && e.tool === "incr")
            .length
      )
      .toBe(10);

    // JSON-RPC errors reach the client with their codes.
    const unknownTool = await client
      .callTool({ name: "nope", arguments: {} })
      .catch((e: unknown) => e);
    expect(unknownTool).toBeInstanceOf(McpError);
    expect((unknownTool as McpError).code).toBe(-32602);
    const prompts = await client.request(
      { method: "prompts/list" },
      ListPromptsResultSchema
    );
    expect(prompts.prompts.map((p) => p.name)).toEqual([
      "instructions",
      "task"
    ]);
    const unknownMethod = await client
      .request({ method: "nope/nothing" }, ListPromptsResultSchema)
      .catch((e: unknown) => e);
    expect((unknownMethod as McpError).code).toBe(-32601);
    const badParams = await client
      .callTool({ name: "incr", arguments: "x" as never })
      .catch((e: unknown) => e);
    expect((badParams as McpError).code).toBe(-32602);
    const missing = await client
      .readResource({ uri: "roost://environment/incr/nothing" })
      .catch((e: unknown) => e);
    expect((missing as McpError).code).toBe(-32002);
    expect((await client.listResources()).resources).toEqual([]);
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
    // The object really died: its socket closed and the client came back.
    expect(statuses).toContain("reconnecting");
    await client.close();
    ws.close();
  });

  it("serves an environment endpoint that makes a session per client", async () => {
    const { client, transport } = await connect(
      `${base}/v1/environments/counter/mcp`
    );
    expect(transport.sessionId).toMatch(/^[0-9a-f]+\.v1\./);
    const first = await client.callTool({ name: "incr", arguments: {} });
    expect(first.content).toEqual([{ type: "text", text: "counter=1" }]);
    const mcpSessionId = transport.sessionId;
    // <session_id>.<token>: the token itself holds dots.
    const [sessionId = "", token = ""] = String(mcpSessionId).split(/\.(.*)/s);
    await abortSession(sessionId);
    const second = await client.callTool({ name: "incr", arguments: {} });
    expect(second.content).toEqual([{ type: "text", text: "counter=2" }]);
    expect(transport.sessionId).toBe(mcpSessionId);
    // The SDK asks for the newest revision with a handshake, which Roost speaks.
    expect(transport.protocolVersion).toBe("2025-11-25");
    // Ending the MCP session deletes the Roost session made for it.
    await transport.terminateSession();
    const gone = await fetch(`${base}/v1/sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${token}` }
    });
    expect(gone.status).toBe(404);
    await client.close();
  });
});
