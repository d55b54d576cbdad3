// MCP 2026-07-28, the stateless revision: no initialize, no session header;
// every request names its revision in _meta and repeats its method (and
// the tool, resource or task it names) in headers that must agree with the
// body. The frames are the ones the v2 TypeScript client sends.
import { describe, expect, it } from "vitest";
import { wide } from "../fixtures/environments";
import {
  authed,
  BASE,
  call,
  createResetSession,
  json,
  send,
  type TestSession,
  withEnv
} from "./helpers";
import { authorize } from "./oauth-flow";

const MODERN = "2026-07-28";
const SESSION_META = "dev.roost/session";

interface Answer {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, unknown> & {
    _meta?: Record<string, unknown>;
    content?: { type: string; text: string }[];
    tools?: { name: string; inputSchema: Record<string, unknown> }[];
  };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

const envelope = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {}
});

/** A stateless request as the v2 client frames it: body, _meta and headers agree. */
const frame = (
  method: string,
  params: Record<string, unknown> = {},
  options: {
    headers?: Record<string, string | undefined>;
    meta?: Record<string, unknown>;
  } = {}
) => {
  const name =
    (params.name as string | undefined) ?? (params.uri as string | undefined);
  const headers: Record<string, string | undefined> = {
    "Content-Type": "application/json",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": method,
    ...(name === undefined ? {} : { "Mcp-Name": name }),
    ...options.headers
  };
  const defined = Object.fromEntries(
    Object.entries(headers).filter(([, v]) => v !== undefined)
  ) as Record<string, string>;
  return send(
    "POST",
    {
      jsonrpc: "2.0",
      id: 7,
      method,
      params: { ...params, _meta: options.meta ?? envelope() }
    },
    defined
  );
};

const onSession = async (
  s: TestSession,
  ...args: Parameters<typeof frame>
): Promise<{ status: number; body: Answer; headers: Headers }> => {
  const res = await s.call("/mcp", frame(...args));
  return {
    status: res.status,
    body: await json<Answer>(res),
    headers: res.headers
  };
};

const onEnvironment = async (
  name: string,
  ...args: Parameters<typeof frame>
): Promise<{ status: number; body: Answer }> => {
  const res = await call(`/v1/environments/${name}/mcp`, frame(...args));
  return { status: res.status, body: await json<Answer>(res) };
};

const counterOf = async (s: TestSession) =>
  (await json<{ state: { count: number } }>(await s.call("/state"))).state
    .count;

describe("MCP 2026-07-28 on a session", () => {
  it("discovers, lists and calls without a handshake or a session header", async () => {
    const s = await createResetSession();
    const discovered = await onSession(s, "server/discover");
    expect(discovered.status).toBe(200);
    expect(discovered.headers.get("Mcp-Session-Id")).toBeNull();
    expect(discovered.body.result).toMatchObject({
      resultType: "complete",
      supportedVersions: expect.arrayContaining([MODERN, "2025-11-25"]),
      capabilities: { tools: {}, resources: {} },
      ttlMs: expect.any(Number),
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "roost" } }
    });

    const listed = await onSession(s, "tools/list");
    expect(listed.body.result).toMatchObject({
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private"
    });
    expect(listed.body.result?.tools?.map((t) => t.name)).toEqual([
      "incr",
      "decr"
    ]);

    const called = await onSession(s, "tools/call", {
      name: "incr",
      arguments: {}
    });
    expect(called.body.result).toMatchObject({
      resultType: "complete",
      isError: false,
      content: [{ type: "text", text: "counter=1" }]
    });
    expect(await counterOf(s)).toBe(1);

    const resources = await onSession(s, "resources/list");
    expect(resources.body.result).toMatchObject({
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private"
    });
  });

  it("passes a JSON Schema 2020-12 tool schema on whole: $schema, $defs, $ref, additionalProperties", async () => {
    const s = await createResetSession({ environment: "wide" });
    const listed = await onSession(s, "tools/list");
    const plan = listed.body.result?.tools?.find((t) => t.name === "plan");
    const parameters = wide.toolSchemas.find((t) => t.function.name === "plan")
      ?.function.parameters;
    expect(plan?.inputSchema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...parameters
    });
    expect(plan?.inputSchema).toMatchObject({
      $defs: expect.any(Object),
      properties: {
        root: { $ref: expect.stringMatching(/^#\/\$defs\//) },
        options: { additionalProperties: false }
      }
    });
    const called = await onSession(s, "tools/call", {
      name: "plan",
      arguments: { root: { name: "a", next: [{ name: "b" }] } }
    });
    expect(called.body.result?.content).toEqual([
      { type: "text", text: "plan a" }
    ]);
  });

  it("refuses routing headers that disagree with the body, with -32020, and changes nothing", async () => {
    const s = await createResetSession();
    const incr = { name: "incr", arguments: {} };
    const refusals = [
      frame("tools/call", incr, { headers: { "Mcp-Method": undefined } }),
      frame("tools/call", incr, { headers: { "Mcp-Method": "tools/list" } }),
      frame("tools/call", incr, { headers: { "Mcp-Name": undefined } }),
      frame("tools/call", incr, { headers: { "Mcp-Name": "decr" } }),
      frame("tools/call", incr, {
        headers: { "MCP-Protocol-Version": undefined }
      })
    ];
    for (const init of refusals) {
      const res = await s.call("/mcp", init);
      expect(res.status).toBe(400);
      const body = await json<Answer>(res);
      expect(body.id).toBe(7);
      expect(body.error?.code).toBe(-32020);
    }
    expect(await counterOf(s)).toBe(0);
    // Header values are read without the whitespace around them (RFC 9110).
    const padded = await s.call(
      "/mcp",
      frame("tools/call", incr, {
        headers: { "Mcp-Name": "  incr ", "Mcp-Method": " tools/call" }
      })
    );
    expect(padded.status).toBe(200);
    expect(await counterOf(s)).toBe(1);
  });

  it("refuses a request without its _meta envelope (-32602) and a revision it does not speak (-32022, listing those it does)", async () => {
    const s = await createResetSession();
    const bare = await onSession(s, "tools/list", {}, { meta: {} });
    expect(bare.status).toBe(400);
    expect(bare.body.error?.code).toBe(-32602);

    const future = await onSession(
      s,
      "server/discover",
      {},
      {
        headers: { "MCP-Protocol-Version": "2099-01-01" },
        meta: envelope("2099-01-01")
      }
    );
    expect(future.status).toBe(400);
    expect(future.body.error).toMatchObject({
      code: -32022,
      data: {
        requested: "2099-01-01",
        supported: expect.arrayContaining([MODERN, "2025-06-18"])
      }
    });
  });

  it("answers initialize and ping with 404 -32601: this revision has no handshake", async () => {
    const s = await createResetSession();
    for (const method of ["initialize", "ping", "logging/setLevel"]) {
      const answer = await onSession(s, method);
      expect(answer.status).toBe(404);
      expect(answer.body.error?.code).toBe(-32601);
    }
  });

  it("reports a resource that names nothing as invalid params with its uri", async () => {
    const s = await createResetSession();
    for (const uri of ["roost://environment/incr/nothing", "test://other"]) {
      const answer = await onSession(s, "resources/read", { uri });
      expect(answer.status).toBe(200);
      expect(answer.body.error).toMatchObject({ code: -32602, data: { uri } });
    }
  });
});

describe("MCP 2026-07-28 on an environment", () => {
  it("discovers and lists the environment's tools without making a session", async () => {
    const discovered = await onEnvironment("counter", "server/discover");
    expect(discovered.body.result).toMatchObject({
      resultType: "complete",
      instructions: expect.any(String)
    });
    const listed = await onEnvironment("counter", "tools/list");
    expect(listed.body.result?.tools?.map((t) => t.name)).toEqual([
      "incr",
      "decr"
    ]);
    const resources = await onEnvironment("counter", "resources/list");
    expect(resources.body.result).toMatchObject({ resources: [] });
  });

  it("starts a session at a tool call, answers it in _meta, and continues it when sent back", async () => {
    const incr = { name: "incr", arguments: {} };
    const first = await onEnvironment("counter", "tools/call", incr);
    expect(first.body.result?.content).toEqual([
      { type: "text", text: "counter=1" }
    ]);
    const credential = first.body.result?._meta?.[SESSION_META];
    expect(credential).toEqual(expect.stringMatching(/^[0-9a-f]{64}\./));

    const again = await onEnvironment("counter", "tools/call", incr, {
      meta: { ...envelope(), [SESSION_META]: credential }
    });
    expect(again.body.result?.content).toEqual([
      { type: "text", text: "counter=2" }
    ]);

    // The credential is the session's: its own endpoint and routes take it.
    const [id, ...rest] = String(credential).split(".");
    const state = await call(`/v1/sessions/${id}/state`, {
      headers: authed(rest.join("."))
    });
    expect((await json<{ state: { count: number } }>(state)).state.count).toBe(
      2
    );

    // Without it, a call is a fresh episode of a fresh session.
    const alone = await onEnvironment("counter", "tools/call", incr);
    expect(alone.body.result?.content).toEqual([
      { type: "text", text: "counter=1" }
    ]);
    expect(alone.body.result?._meta?.[SESSION_META]).not.toBe(credential);
  });

  it("refuses an unknown tool without making a session, and a forged session", async () => {
    const unknown = await onEnvironment("counter", "tools/call", {
      name: "nope",
      arguments: {}
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body.error?.code).toBe(-32602);
    expect(unknown.body.result).toBeUndefined();

    const forged = await onEnvironment(
      "counter",
      "tools/call",
      { name: "incr", arguments: {} },
      { meta: { ...envelope(), [SESSION_META]: `${"0".repeat(64)}.x` } }
    );
    expect(forged.status).toBe(200);
    expect(forged.body.error).toMatchObject({
      code: -32602,
      data: { meta: SESSION_META }
    });
  });

  it("still creates a session per client at initialize for the revisions with a handshake", async () => {
    const res = await call(
      "/v1/environments/counter/mcp",
      send("POST", {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "t", version: "1" }
        }
      })
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("Mcp-Session-Id")).toMatch(/^[0-9a-f]{64}\./);
    expect((await json<Answer>(res)).result?.protocolVersion).toBe(
      "2025-11-25"
    );
  });

  it("hands a client that came with an OAuth token a session it may act on, not control", async () => {
    const keyed = withEnv({ ROOST_OAUTH: "1", ROOST_API_KEYS: "k-stateless" });
    const path = "/v1/environments/counter/mcp";
    const { access_token } = await authorize(keyed, `${BASE}${path}`, {
      credential: "k-stateless"
    });
    const init = frame("tools/call", { name: "incr", arguments: {} });
    const res = await keyed(path, {
      ...init,
      headers: { ...init.headers, Authorization: `Bearer ${access_token}` }
    });
    const body = await json<Answer>(res);
    expect(body.result?.content).toEqual([{ type: "text", text: "counter=1" }]);
    const credential = String(body.result?._meta?.[SESSION_META]);
    const [id, ...rest] = credential.split(".");
    expect(rest.join(".")).toMatch(/^act\./);
    const reset = await keyed(
      `/v1/sessions/${id}/reset`,
      send("POST", {}, authed(rest.join(".")))
    );
    expect(reset.status).toBe(403);
  });
});
