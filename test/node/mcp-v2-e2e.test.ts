import {
  Client,
  StreamableHTTPClientTransport
} from "@modelcontextprotocol/client";
import { describe, expect, inject, it } from "vitest";

// The v2 TypeScript MCP client, as a 2026 client runs it: it probes with
// server/discover, speaks the stateless revision when the server offers
// it, and falls back to initialize when not. Against wrangler dev.
const base = inject("baseUrl");
const SESSION_META = "dev.roost/session";

const connect = async (url: string, headers: Record<string, string> = {}) => {
  const client = new Client(
    { name: "roost-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } }
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers }
    })
  );
  return client;
};

const createReset = async () => {
  const created = (await (
    await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "counter" })
    })
  ).json()) as { session_id: string; token: string };
  const reset = await fetch(`${base}/v1/sessions/${created.session_id}/reset`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${created.token}`
    },
    body: "{}"
  });
  expect(reset.status).toBe(200);
  return { id: created.session_id, token: created.token };
};

const abortSession = async (id: string) => {
  const res = await fetch(`${base}/__e2e/sessions/${id}/abort`, {
    method: "POST"
  });
  expect(res.status).toBe(204);
};

const textOf = (result: { content?: unknown }) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text);

describe("MCP 2026-07-28 with the v2 client", () => {
  it("negotiates the stateless revision on a session and calls its tools across an abort", async () => {
    const { id, token } = await createReset();
    const client = await connect(`${base}/v1/sessions/${id}/mcp`, {
      Authorization: `Bearer ${token}`
    });
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["incr", "decr"]);
    expect(tools[0]?.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object"
    });
    for (let i = 1; i <= 4; i++) {
      const result = await client.callTool({ name: "incr", arguments: {} });
      expect(textOf(result)).toEqual([`counter=${i}`]);
      // Stateless: nothing ties the client to the object that died.
      if (i === 2) await abortSession(id);
    }
    const unknown = await client
      .callTool({ name: "nope", arguments: {} })
      .catch((e: unknown) => e);
    expect((unknown as { code?: number }).code).toBe(-32602);
    await client.close();
  });

  it("keeps a session on an environment's endpoint by sending back what a tool call answered", async () => {
    const client = await connect(`${base}/v1/environments/counter/mcp`);
    expect(client.getProtocolEra()).toBe("modern");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "incr",
      "decr"
    ]);
    const first = await client.callTool({ name: "incr", arguments: {} });
    expect(textOf(first)).toEqual(["counter=1"]);
    const credential = first._meta?.[SESSION_META];
    expect(typeof credential).toBe("string");
    const again = await client.callTool({
      name: "incr",
      arguments: {},
      _meta: { [SESSION_META]: credential }
    });
    expect(textOf(again)).toEqual(["counter=2"]);
    // Its own endpoint, whose URL names it, continues it too.
    const [sessionId = "", token = ""] = String(credential).split(/\.(.*)/s);
    const own = await connect(`${base}/v1/sessions/${sessionId}/mcp`, {
      Authorization: `Bearer ${token}`
    });
    expect(textOf(await own.callTool({ name: "incr", arguments: {} }))).toEqual(
      ["counter=3"]
    );
    await own.close();
    await client.close();
  });

  it("falls back to the handshake when told to speak only the older revisions", async () => {
    const client = new Client({ name: "roost-e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`${base}/v1/environments/counter/mcp`)
      )
    );
    expect(client.getProtocolEra()).toBe("legacy");
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const result = await client.callTool({ name: "incr", arguments: {} });
    expect(textOf(result)).toEqual(["counter=1"]);
    await client.close();
  });
});
