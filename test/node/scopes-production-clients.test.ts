import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Frame } from "./helpers/frames";
import { withProductionServer } from "./helpers/production-server";
import {
  type Credential,
  catalogQuery,
  expectError,
  incrAction
} from "./helpers/scoped-http";
import { openSocket as open } from "./helpers/scoped-socket";

// Scoped credentials in production mode through the clients users run: the
// `ws` package on Node, the requests of Aviary's TaskDatasetClient, and the
// official MCP SDK. A wrangler dev of its own, with ROOST_SECRETS and
// ROOST_API_KEYS and no ROOST_DEV.

const production = withProductionServer();
const { http, key } = production;

const steps = (frames: Frame[]) =>
  frames.filter((f) => f.type === "step").length;

const stepsOf = async (id: string) =>
  (await http.get(`/v1/sessions/${id}`, { apiKey: key })).body.steps as number;

describe("production mode: sockets with the ws package", () => {
  it("an observe socket watches and is refused a step; an act socket steps", async () => {
    const {
      session_id: id,
      token,
      ws_url
    } = await http.createSession("counter", key);
    const observe = await http.mint(id, "observe", { bearer: token });
    const act = await http.mint(id, "act", { bearer: token });
    const viewer = open(ws_url, observe, "protocol");
    await viewer.snapshot();
    expect(viewer.ws.protocol).toBe("roost.v1");
    const agent = open(ws_url, act, "query");
    await agent.snapshot();

    // Another client steps: the viewer sees it live.
    const stepped = await http.post(
      `/v1/sessions/${id}/step`,
      { bearer: act },
      incrAction("h1")
    );
    expect(stepped.status, stepped.text).toBe(200);
    await viewer.until((f) => steps(f) === 1, "the first step's events");
    expect(
      viewer.frames.some((f) => f.type === "tool.finished" && f.tool === "incr")
    ).toBe(true);

    const refused = await viewer.request({
      type: "step",
      id: "v1",
      ...incrAction("v1")
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "forbidden", details: { scope: "act" } }
    });
    expect(await stepsOf(id)).toBe(1);
    // Refused, not dropped: the viewer keeps watching.
    expect(viewer.ws.readyState).toBe(WebSocket.OPEN);

    const accepted = await agent.request({
      type: "step",
      id: "a1",
      ...incrAction("a1")
    });
    expect(accepted.ok, JSON.stringify(accepted)).toBe(true);
    expect(await stepsOf(id)).toBe(2);
    await viewer.until((f) => steps(f) === 2, "the agent's step");
    viewer.ws.close();
    agent.ws.close();
  });

  it("a socket whose token expires is closed with 4401", async () => {
    const {
      session_id: id,
      token,
      ws_url
    } = await http.createSession("counter", key);
    const short = await http.mint(id, "observe", { bearer: token }, 2);
    const viewer = open(ws_url, short, "protocol");
    await viewer.snapshot();
    expect((await viewer.closeCode()).code).toBe(4401);
  }, 60_000);

  it("a socket opened with an expired token is closed with 4401, as the docs promise a refused one is", async () => {
    const {
      session_id: id,
      token,
      ws_url
    } = await http.createSession("counter", key);
    const short = await http.mint(id, "observe", { bearer: token }, 1);
    await expect
      .poll(
        async () =>
          (await http.get(`/v1/sessions/${id}`, { bearer: short })).status,
        {
          timeout: 15_000,
          interval: 250
        }
      )
      .toBe(401);
    // A client that reconnects with the token it had must learn why it
    // cannot (4401: get a new token), not see an abnormal 1006 it retries.
    const again = open(ws_url, short, "protocol");
    expect(await again.closeCode()).toEqual({ code: 4401, failed: undefined });
  }, 60_000);

  it("revoking observe closes observe sockets with 4401 and leaves an act socket open", async () => {
    const {
      session_id: id,
      token,
      ws_url
    } = await http.createSession("counter", key);
    const observe = await http.mint(id, "observe", { bearer: token });
    const act = await http.mint(id, "act", { bearer: token });
    const viewers = [
      open(ws_url, observe, "protocol"),
      open(ws_url, observe, "query")
    ];
    const agent = open(ws_url, act, "protocol");
    for (const s of [...viewers, agent]) await s.snapshot();

    const revoked = await http.post(
      `/v1/sessions/${id}/tokens/revoke`,
      { bearer: token },
      { scope: "observe" }
    );
    expect(revoked.status, revoked.text).toBe(200);
    for (const viewer of viewers)
      expect((await viewer.closeCode()).code).toBe(4401);

    const reply = await agent.request({
      type: "step",
      id: "a1",
      ...incrAction("a1")
    });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    expect(agent.ws.readyState).toBe(WebSocket.OPEN);
    // The revoked token opens nothing; a fresh one does.
    expect((await open(ws_url, observe, "protocol").closeCode()).code).toBe(
      4401
    );
    const fresh = open(
      ws_url,
      await http.mint(id, "observe", { bearer: token }),
      "protocol"
    );
    await fresh.snapshot();
    fresh.ws.close();
    agent.ws.close();
  }, 60_000);

  it("no socket but grade's is ever sent the hidden store", async () => {
    const {
      session_id: id,
      token,
      ws_url
    } = await http.createSession("catalog", key);
    const viewer = open(
      ws_url,
      await http.mint(id, "observe", { bearer: token }),
      "protocol"
    );
    const agent = open(
      ws_url,
      await http.mint(id, "act", { bearer: token }),
      "query"
    );
    const owner = open(ws_url, token, "protocol");
    for (const s of [viewer, agent, owner]) await s.snapshot();
    expect(
      (await agent.request({ type: "step", id: "a1", ...catalogQuery("q1") }))
        .ok
    ).toBe(true);
    const called = await agent.request({
      type: "call",
      id: "a2",
      tool: "query",
      arguments: { collection: "messages", text: "toy" }
    });
    expect(called.ok, JSON.stringify(called)).toBe(true);
    for (const s of [viewer, owner])
      await s.until((f) => steps(f) === 1, "the step's events");
    const grade = await http.mint(id, "grade", { bearer: token });
    const hidden = await http.get(`/v1/sessions/${id}/hidden`, {
      bearer: grade
    });
    expect(hidden.text).toContain("FROM catalog_");
    for (const s of [viewer, agent, owner]) {
      const sent = JSON.stringify(s.frames);
      expect(sent).toContain("tool.finished");
      expect(sent).not.toContain("FROM catalog_");
      expect(sent).not.toContain("last_raw");
      s.ws.close();
    }
  });
});

describe("production mode: Aviary's TaskDatasetClient", () => {
  /** As httpx sends them: compact JSON, its Accept, and the client's api_key as X-API-Key. */
  const send = (url: string, body?: unknown, apiKey?: string) =>
    fetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        Accept: "*/*",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(apiKey === undefined ? {} : { "X-API-Key": apiKey })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    });
  const toolRequest = (id: string) => ({
    role: "assistant",
    content: null,
    function_call: null,
    tool_calls: [
      { id, type: "function", function: { arguments: "{}", name: "incr" } }
    ]
  });

  it("runs an episode with the key in X-API-Key, and refuses every request without it", async () => {
    const base = `${production.server.baseUrl}/v1/environments/counter/aviary`;
    for (const apiKey of [undefined, "not-the-key"]) {
      const want = apiKey === undefined ? 401 : 403;
      expect((await send(`${base}/info`, undefined, apiKey)).status).toBe(want);
      expect(
        (await send(`${base}/start`, { task_idx: null }, apiKey)).status
      ).toBe(want);
    }

    expect((await send(`${base}/info`, undefined, key)).status).toBe(200);
    const started = await send(`${base}/start`, { task_idx: null }, key);
    expect(started.status).toBe(200);
    const envId = ((await started.json()) as { env_id: string }).env_id;
    expect(typeof envId).toBe("string");

    // The env_id proves the session, but Aviary's routes still want the key.
    const resetBare = await send(`${base}/reset`, { env_id: envId });
    expect(resetBare.status).toBe(401);
    const reset = await send(`${base}/reset`, { env_id: envId }, key);
    expect(reset.status).toBe(200);
    const step = async (callId: string, apiKey?: string) =>
      send(
        `${base}/step`,
        { env_id: envId, action: toolRequest(callId) },
        apiKey
      );
    const first = await step("call_1", key);
    expect(first.status).toBe(200);
    const [[observation]] = (await first.json()) as [{ content: string }[]];
    expect(observation!.content).toBe("counter=1");
    expect((await step("call_2")).status).toBe(401);
    expect((await step("call_3", "not-the-key")).status).toBe(403);
    // The refused steps did nothing.
    const second = (await (await step("call_4", key)).json()) as [
      { content: string }[]
    ];
    expect(second[0][0]!.content).toBe("counter=2");

    expect((await send(`${base}/close`, { env_id: envId })).status).toBe(401);
    const closed = await send(`${base}/close`, { env_id: envId }, key);
    expect(closed.status).toBe(200);
    expect(await closed.json()).toEqual({ env_id: envId });
  });
});

describe("production mode: the MCP SDK client", () => {
  const connect = async (
    url: string,
    headers: Record<string, string>,
    sessionId?: string
  ) => {
    const client = new Client({ name: "roost-scopes-e2e", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers },
      ...(sessionId === undefined ? {} : { sessionId })
    });
    await client.connect(transport);
    return { client, transport };
  };
  const incr = (client: Client) =>
    client.callTool({ name: "incr", arguments: {} });
  const text = (result: Awaited<ReturnType<typeof incr>>) =>
    (result.content as { text: string }[])[0]!.text;

  it("an act credential calls tools; an observe credential lists them and is refused a call", async () => {
    const { session_id: id, token } = await http.createSession("counter", key);
    const act = await http.mint(id, "act", { bearer: token });
    const observe = await http.mint(id, "observe", { bearer: token });
    const sessionUrl = `${production.server.baseUrl}/v1/sessions/${id}/mcp`;
    const environmentUrl = `${production.server.baseUrl}/v1/environments/counter/mcp`;

    // The session's own endpoint, the token as the bearer.
    const agent = await connect(sessionUrl, { Authorization: `Bearer ${act}` });
    const first = await incr(agent.client);
    expect(first.isError).toBe(false);
    expect(text(first)).toBe("counter=1");

    // The environment's endpoint, attached to this session by
    // Mcp-Session-Id <session_id>.<token> (and the key it needs for itself).
    const attached = await connect(
      environmentUrl,
      { "X-API-Key": key },
      `${id}.${act}`
    );
    expect(attached.transport.sessionId).toBe(`${id}.${act}`);
    const second = await incr(attached.client);
    expect(text(second)).toBe("counter=2");

    for (const viewer of [
      await connect(sessionUrl, { Authorization: `Bearer ${observe}` }),
      await connect(environmentUrl, { "X-API-Key": key }, `${id}.${observe}`)
    ]) {
      const { tools } = await viewer.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["incr", "decr"]);
      const refused = await incr(viewer.client).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32000);
      expect((refused as McpError).data).toMatchObject({
        code: "forbidden",
        details: { scope: "act" }
      });
      await viewer.client.close();
    }
    expect(await stepsOf(id)).toBe(0);
    const state = await http.get(`/v1/sessions/${id}/state`, { apiKey: key });
    expect(state.body).toMatchObject({ state: { count: 2 } });

    // Revoked mid-conversation: the next call is refused, not served, with
    // the HTTP 401 that tells a client to get a new credential.
    const revoked = await http.post(
      `/v1/sessions/${id}/tokens/revoke`,
      { bearer: token },
      { scope: "act" }
    );
    expect(revoked.status).toBe(200);
    for (const client of [agent.client, attached.client]) {
      const after = await incr(client).catch((e: unknown) => e);
      expect(after).toBeInstanceOf(Error);
      expect(after).not.toBeInstanceOf(McpError);
      expect((after as { code?: number }).code).toBe(401);
      expect((after as Error).message).toMatch(/revoked/);
      await client.close();
    }
    expect(
      (await http.get(`/v1/sessions/${id}/state`, { apiKey: key })).body
    ).toMatchObject({ state: { count: 2 } });
  });

  it("the environment endpoint needs the key before anything else", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "probe", version: "1" }
      }
    };
    const post = (credential: Credential) =>
      http.call("POST", "/v1/environments/counter/mcp", credential, initialize);
    expectError(await post({ none: true }), 401, "unauthorized");
    expectError(await post({ apiKey: "not-the-key" }), 403, "forbidden");
    // A session's credential is no key: attaching with one alone is refused.
    const { session_id: id, token } = await http.createSession("counter", key);
    expectError(await post({ bearer: `${id}.${token}` }), 403, "forbidden");
    // The SDK client without the key cannot connect at all.
    const refused = await connect(
      `${production.server.baseUrl}/v1/environments/counter/mcp`,
      {}
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(401);
  });
});
