import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ListPromptsResultSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";

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

describe("MCP with the official client", () => {
  it("lists and calls a counter session's tools, with the same effects over HTTP and the socket", async () => {
    const created = await post("/v1/sessions", { environment: "counter" });
    const id = String(created.session_id);
    const token = String(created.token);
    await post(`/v1/sessions/${id}/reset`, {}, token);
    const frames: { type: string; tool?: string }[] = [];
    const ws = new WebSocket(
      `${base.replace("http", "ws")}/v1/sessions/${id}/ws`,
      ["roost.v1", `roost.token.${token}`]
    );
    ws.on("message", (d) => frames.push(JSON.parse(String(d))));
    await new Promise((r) => ws.once("open", r));

    const { client } = await connect(`${base}/v1/sessions/${id}/mcp`, {
      Authorization: `Bearer ${token}`
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["incr", "decr"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object" });
    for (let i = 1; i <= 10; i++) {
      const result = await client.callTool({ name: "incr", arguments: {} });
      expect(result.isError).toBe(false);
      expect(result.content).toEqual([{ type: "text", text: `counter=${i}` }]);
    }
    const state = await (
      await fetch(`${base}/v1/sessions/${id}/state`, {
        headers: { authorization: `Bearer ${token}` }
      })
    ).json();
    expect(state).toMatchObject({ state: { count: 10 } });
    await expect
      .poll(
        () =>
          frames.filter((f) => f.type === "tool.finished" && f.tool === "incr")
            .length
      )
      .toBe(10);

    // JSON-RPC errors reach the client with their codes.
    const unknownTool = await client
      .callTool({ name: "nope", arguments: {} })
      .catch((e: unknown) => e);
    expect(unknownTool).toBeInstanceOf(McpError);
    expect((unknownTool as McpError).code).toBe(-32602);
    const unknownMethod = await client
      .request({ method: "prompts/list" }, ListPromptsResultSchema)
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
    const second = await client.callTool({ name: "incr", arguments: {} });
    expect(second.content).toEqual([{ type: "text", text: "counter=2" }]);
    // The SDK asks for a newer version than Roost speaks and settles on ours.
    expect(transport.protocolVersion).toBe("2025-06-18");
    await transport.terminateSession();
    await client.close();
  });
});
