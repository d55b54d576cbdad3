// DNS rebinding against a real development server: a page on another site
// that points its own name at 127.0.0.1 reaches wrangler dev's port with
// that name as Host and its own Origin. Sent with Node's http module, which
// puts on the wire exactly the Host a browser would.
import { request } from "node:http";
import { describe, expect, inject, it } from "vitest";

const send = (
  path: string,
  headers: Record<string, string>,
  body?: unknown
): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, inject("baseUrl"));
    const req = request(
      url,
      {
        method: body === undefined ? "GET" : "POST",
        headers: {
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...headers
        }
      },
      (res) => {
        let text = "";
        res.on("data", (d) => {
          text += String(d);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      }
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

const rebound = (port: string) => ({
  Host: `rebound.example:${port}`,
  Origin: `http://rebound.example:${port}`
});

describe("a development server and DNS rebinding", () => {
  const port = new URL(inject("baseUrl")).port;

  it("refuses a rebound page on a plain route, on creation and on MCP", async () => {
    for (const [path, body] of [
      ["/v1/environments", undefined],
      ["/v1/sessions", { environment: "counter" }],
      [
        "/v1/environments/counter/mcp",
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "page", version: "1" }
          }
        }
      ]
    ] as const) {
      const res = await send(path, rebound(port), body);
      expect(res.status, path).toBe(403);
      expect(JSON.parse(res.text).error.code).toBe("forbidden");
    }
  });

  it("refuses another site's Origin on the local host, and answers the local host itself", async () => {
    const foreign = await send("/v1/environments", {
      Origin: "https://attacker.example"
    });
    expect(foreign.status).toBe(403);
    const local = await send("/v1/environments", {});
    expect(local.status).toBe(200);
  });
});
