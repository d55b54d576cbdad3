import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type OAuthClientProvider,
  UnauthorizedError
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { describe, expect, it } from "vitest";
import {
  CONFORMANCE_CLI,
  failedChecks,
  readChecks
} from "./helpers/conformance/cli";
import { withProductionServer } from "./helpers/production-server";
import { testPort } from "./helpers/test-port";

// The official MCP client's OAuth against a real wrangler dev configured as
// a deployment with OAuth on: it finds the authorization server from the
// 401, registers, sends "the browser" to the consent page (this test reads
// the form and submits it with the API key, as the operator would), trades
// the code with its PKCE verifier, and calls a tool with the token.

const REDIRECT = "http://127.0.0.1:33418/callback";
const production = withProductionServer({ ROOST_OAUTH: "1" });
const apiKey = production.key;

/** What a client keeps between runs, in memory, and the URL it was sent to. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata = {
    client_name: "SDK test client",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none"
  };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The operator's browser: opens the consent page, types the key, clicks Allow; answers the redirect's code. */
const approveInBrowser = async (
  url: URL,
  key: string,
  redirect = REDIRECT
): Promise<string> => {
  const page = await fetch(url, { redirect: "manual" });
  expect(page.status).toBe(200);
  const html = await page.text();
  const consent = /name="consent" value="([^"]+)"/.exec(html)?.[1];
  const cookie = page.headers.get("set-cookie")?.split(";")[0];
  expect(consent).toBeDefined();
  const answer = await fetch(new URL("/oauth/authorize", url), {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookie!,
      origin: new URL(url).origin
    },
    body: new URLSearchParams({
      consent: consent!,
      credential: key,
      decision: "allow"
    })
  });
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(redirect);
  expect(back.searchParams.get("iss")).toBe(new URL(url).origin);
  // The client's own callback (the conformance suite listens on it).
  if (redirect !== REDIRECT) await fetch(back);
  return back.searchParams.get("code")!;
};

describe("the MCP SDK's OAuth client against wrangler dev", () => {
  it("discovers, registers, is approved with an API key, and calls a tool with its token", async () => {
    const endpoint = new URL(
      `${production.server.baseUrl}/v1/environments/counter/mcp`
    );
    const provider = new MemoryProvider();
    const first = new StreamableHTTPClientTransport(endpoint, {
      authProvider: provider
    });
    await expect(
      new Client({ name: "oauth-e2e", version: "1" }).connect(first)
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBeTruthy();
    const url = provider.authorizationUrl!;
    expect(url.pathname).toBe("/oauth/authorize");
    expect(url.searchParams.get("resource")).toBe(endpoint.href);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const code = await approveInBrowser(url, apiKey);
    await first.finishAuth(code);
    expect(provider.saved?.scope).toBe("act");

    const client = new Client({ name: "oauth-e2e", version: "1" });
    const transport = new StreamableHTTPClientTransport(endpoint, {
      authProvider: provider
    });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("incr");
    const result = await client.callTool({ name: "incr", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "counter=1" }]);
    // The session made for this client holds act only.
    expect(transport.sessionId).toMatch(/^[0-9a-f]{64}\.act\./);
    await client.close();
  });

  // The official MCP conformance suite's authorization-server scenarios:
  // its metadata checks, and an authorization code grant with PKCE, which
  // waits for a person to approve in a browser; approved here as the
  // operator would. It registers no client, so this one is registered first.
  it("passes the MCP conformance suite's authorization scenarios", async () => {
    const port = await testPort();
    const redirect = `http://127.0.0.1:${port}/callback`;
    const registered = await fetch(
      `${production.server.baseUrl}/oauth/register`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "conformance",
          redirect_uris: [redirect],
          token_endpoint_auth_method: "none"
        })
      }
    );
    const { client_id } = (await registered.json()) as { client_id: string };
    const out = mkdtempSync(join(tmpdir(), "roost-conformance-auth-"));
    try {
      const suite = spawn(
        process.execPath,
        [
          ...CONFORMANCE_CLI,
          "authorization",
          "--url",
          production.server.baseUrl,
          "--client-id",
          client_id,
          "--port",
          String(port),
          "--resource",
          `${production.server.baseUrl}/v1/environments/counter/mcp`,
          "-o",
          out
        ],
        { stdio: ["ignore", "pipe", "inherit"] }
      );
      const ended = new Promise((done) => suite.on("exit", done));
      let printed = "";
      const url = await new Promise<URL>((resolve, reject) => {
        suite.stdout.on("data", (chunk: Buffer) => {
          printed += chunk.toString();
          const found = /Access the following URL[^\n]*\n(\S+)/.exec(printed);
          if (found?.[1] !== undefined) resolve(new URL(found[1]));
        });
        suite.on("exit", () => reject(new Error(printed)));
      });
      await approveInBrowser(url, apiKey, redirect);
      await ended;
      const scenarios = readChecks(out);
      expect(failedChecks(scenarios)).toEqual([]);
      expect([...scenarios.keys()].sort()).toEqual([
        "authorization-server-authorization-code-grant",
        "authorization-server-authorization-server-metadata-endpoint"
      ]);
      for (const checks of scenarios.values())
        expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it("is refused (401) with a token issued for another environment's endpoint", async () => {
    const provider = new MemoryProvider();
    const counter = new URL(
      `${production.server.baseUrl}/v1/environments/counter/mcp`
    );
    const transport = new StreamableHTTPClientTransport(counter, {
      authProvider: provider
    });
    await expect(
      new Client({ name: "oauth-e2e", version: "1" }).connect(transport)
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(
      await approveInBrowser(provider.authorizationUrl!, apiKey)
    );
    const res = await fetch(
      `${production.server.baseUrl}/v1/environments/story/mcp`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${provider.saved!.access_token}`
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {} }
        })
      }
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(
      `resource_metadata="${production.server.baseUrl}/.well-known/oauth-protected-resource/v1/environments/story/mcp"`
    );
  });
});
