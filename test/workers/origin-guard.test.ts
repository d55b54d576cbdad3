// Browsers from elsewhere are refused before anything runs: a request
// whose Origin is neither the worker's own nor allowed is 403 on every
// route (MCP's included), and a development server, which has no auth,
// answers local Host names only, so a page that rebinds its DNS name to
// 127.0.0.1 cannot drive the sessions of a developer who visits it.
import { describe, expect, it } from "vitest";
import { toolCalls } from "../../src/messages/build";
import { call, createResetSession, json, send, withEnv } from "./helpers";

const PRODUCTION = withEnv({
  ROOST_DEV: undefined,
  ROOST_SECRETS: "k1:origin-guard-test-secret-0123456789abcdef",
  ROOST_CORS_ORIGINS: "https://app.example"
});

const MCP_INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" }
  }
};

const refusal = async (res: Response) => {
  expect(res.status).toBe(403);
  return (await json<{ error: { code: string; message: string } }>(res)).error;
};

describe("development mode: local hosts only", () => {
  it.each([
    ["a plain route", "/v1/environments", undefined],
    ["creating a session", "/v1/sessions", { environment: "counter" }],
    ["MCP", "/v1/environments/counter/mcp", MCP_INIT]
  ])("refuses a rebound Host on %s", async (_what, path, body) => {
    const error = await refusal(
      await call(path, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          Host: "rebound.example:8787",
          "Content-Type": "application/json"
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
    );
    expect(error.code).toBe("forbidden");
    expect(error.message).toContain("local hosts only");
  });

  it.each([
    "127.0.0.1:8787",
    "localhost:8787",
    "[::1]:8787",
    "roost.localhost"
  ])("answers Host %s", async (host) => {
    const res = await call("/v1/environments", { headers: { Host: host } });
    expect(res.status).toBe(200);
  });

  it("refuses another site's Origin, even to the local host, and changes nothing", async () => {
    const s = await createResetSession();
    const error = await refusal(
      await s.call("/step", {
        ...send("POST", { action: toolCalls({ name: "incr", arguments: {} }) }),
        headers: {
          Authorization: `Bearer ${s.token}`,
          "Content-Type": "application/json",
          Origin: "https://attacker.example"
        }
      })
    );
    expect(error.message).toContain("ROOST_CORS_ORIGINS");
    expect((await json<{ steps: number }>(await s.call(""))).steps).toBe(0);
  });

  // An MCP App's page runs in a host's sandboxed frame (Origin: null) and
  // holds a token minted for it; a socket that carries no token is still
  // refused from elsewhere.
  it("opens a socket from any Origin only when it carries its token", async () => {
    const s = await createResetSession();
    const upgrade = (protocols: string) =>
      s.call("/ws", {
        headers: {
          Upgrade: "websocket",
          Origin: "null",
          "Sec-WebSocket-Protocol": protocols
        }
      });
    const opened = await upgrade(`roost.v1, roost.token.${s.token}`);
    expect(opened.status).toBe(101);
    opened.webSocket?.accept();
    opened.webSocket?.close();
    expect((await refusal(await upgrade("roost.v1"))).code).toBe("forbidden");
  });

  it("answers its own origin, localhost pages and clients that send no Origin", async () => {
    for (const origin of [
      "http://127.0.0.1:8787",
      "http://localhost:5173",
      undefined
    ]) {
      const res = await call("/v1/environments", {
        headers: origin === undefined ? {} : { Origin: origin }
      });
      expect(res.status, String(origin)).toBe(200);
    }
  });
});

describe("production: origins from ROOST_CORS_ORIGINS", () => {
  it("refuses an unlisted Origin on plain routes and MCP, with 403", async () => {
    for (const [path, body] of [
      ["/v1/environments", undefined],
      ["/v1/environments/counter/mcp", MCP_INIT]
    ] as const) {
      const error = await refusal(
        await PRODUCTION(path, {
          method: body === undefined ? "GET" : "POST",
          headers: {
            Origin: "https://attacker.example",
            "Content-Type": "application/json"
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
      );
      expect(error.code).toBe("forbidden");
    }
    // Neither is a localhost page listed by default outside development.
    expect(
      (
        await PRODUCTION("/v1/environments", {
          headers: { Origin: "http://localhost:5173" }
        })
      ).status
    ).toBe(403);
  });

  it("answers a listed Origin, the worker's own, and any Host", async () => {
    const cases: Record<string, string>[] = [
      { Origin: "https://app.example" },
      { Origin: "http://127.0.0.1:8787" },
      { Host: "roost.example.com" }
    ];
    for (const headers of cases) {
      const res = await PRODUCTION("/v1/environments", { headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });
});
