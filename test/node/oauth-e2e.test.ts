import { randomBytes } from "node:crypto";
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";
import { type E2eServer, startE2eServer } from "./helpers/e2e-server";

// The official MCP client's OAuth against a real wrangler dev configured as
// a deployment with OAuth on: it finds the authorization server from the
// 401, registers, sends "the browser" to the consent page (this test reads
// the form and submits it with the API key, as the operator would), trades
// the code with its PKCE verifier, and calls a tool with the token.

const REDIRECT = "http://127.0.0.1:33418/callback";
const random = () => randomBytes(32).toString("base64url");
const apiKey = random();
let server: E2eServer;

beforeAll(async () => {
  server = await startE2eServer({
    port: await freePort(),
    vars: {
      ROOST_SECRETS: `k1:${random()}`,
      ROOST_API_KEYS: apiKey,
      ROOST_OAUTH: "1"
    }
  });
});

afterAll(async () => {
  await server?.stop();
});

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
const approveInBrowser = async (url: URL, key: string): Promise<string> => {
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
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("iss")).toBe(new URL(url).origin);
  return back.searchParams.get("code")!;
};

describe("the MCP SDK's OAuth client against wrangler dev", () => {
  it("discovers, registers, is approved with an API key, and calls a tool with its token", async () => {
    const endpoint = new URL(`${server.baseUrl}/v1/environments/counter/mcp`);
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

  it("is refused (401) with a token issued for another environment's endpoint", async () => {
    const provider = new MemoryProvider();
    const counter = new URL(`${server.baseUrl}/v1/environments/counter/mcp`);
    const transport = new StreamableHTTPClientTransport(counter, {
      authProvider: provider
    });
    await expect(
      new Client({ name: "oauth-e2e", version: "1" }).connect(transport)
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(
      await approveInBrowser(provider.authorizationUrl!, apiKey)
    );
    const res = await fetch(`${server.baseUrl}/v1/environments/story/mcp`, {
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
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(
      `resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/v1/environments/story/mcp"`
    );
  });
});
