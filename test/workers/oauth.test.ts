import { describe, expect, it } from "vitest";
import {
  authed,
  BASE,
  call,
  createResetSession,
  createSession,
  errorOf,
  json,
  send,
  withEnv
} from "./helpers";
import {
  authorize,
  codeOf,
  exchange,
  form,
  INITIALIZE,
  mcpPost,
  openConsent,
  pkce,
  register,
  rpc,
  submitConsent
} from "./oauth-flow";

const KEY = "key-oauth";
const keyed = withEnv({ ROOST_OAUTH: "1", ROOST_API_KEYS: KEY });
const open = withEnv({ ROOST_OAUTH: "1" });

const COUNTER_MCP = "/v1/environments/counter/mcp";
const STORY_MCP = "/v1/environments/story/mcp";

interface RpcAnswer {
  result?: { content?: { text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

describe("OAuth off (the default)", () => {
  it("serves no OAuth endpoints and leaves 401s as they were", async () => {
    const metadata = await call("/.well-known/oauth-authorization-server");
    expect(metadata.status).toBe(404);
    expect((await errorOf(metadata)).message).toMatch(/ROOST_OAUTH=1/);
    expect((await call("/oauth/register", send("POST", {}))).status).toBe(404);
    const s = await createSession();
    const res = await call(
      `/v1/sessions/${s.session_id}/mcp`,
      send("POST", {})
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBeNull();
  });
});

describe("OAuth for an environment's MCP endpoint (API keys set)", () => {
  it("runs discovery, registration, consent with a key, PKCE, and a tool call with the token", async () => {
    // 1. Unauthenticated: a 401 naming the resource metadata.
    const first = await mcpPost(keyed, COUNTER_MCP, INITIALIZE, {});
    expect(first.status).toBe(401);
    const challenge = first.headers.get("WWW-Authenticate")!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(
      `${BASE}/.well-known/oauth-protected-resource${COUNTER_MCP}`
    );
    // 2. Protected resource metadata → the authorization server.
    const prm = await json<{
      resource: string;
      authorization_servers: string[];
    }>(await keyed(new URL(metadataUrl!).pathname));
    expect(prm.resource).toBe(`${BASE}${COUNTER_MCP}`);
    expect(prm.authorization_servers).toEqual([BASE]);
    // 3. Authorization server metadata.
    const as = await json<Record<string, unknown>>(
      await keyed("/.well-known/oauth-authorization-server")
    );
    expect(as).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true
    });
    // 4. Registration, consent: the page asks for a key and escapes the client's name.
    const clientId = await register(keyed);
    const { verifier, challenge: codeChallenge } = await pkce();
    const consent = await openConsent(
      keyed,
      clientId,
      prm.resource,
      codeChallenge
    );
    expect(consent.html).toContain("Test &lt;Chat&gt;");
    expect(consent.html).not.toContain("<Chat>");
    expect(consent.html).toContain('type="password" name="credential"');
    const noKey = await submitConsent(keyed, consent);
    expect(noKey.status).toBe(403);
    expect(noKey.headers.get("Location")).toBeNull();
    const wrongKey = await submitConsent(keyed, consent, {
      credential: "nope"
    });
    expect(wrongKey.status).toBe(403);
    const code = codeOf(
      await submitConsent(keyed, consent, { credential: KEY })
    );
    // 5. Token.
    const tokenRes = await exchange(keyed, clientId, code, verifier);
    expect(tokenRes.status).toBe(200);
    expect(tokenRes.headers.get("Cache-Control")).toBe("no-store");
    const tokens = await json<{
      access_token: string;
      scope: string;
      token_type: string;
    }>(tokenRes);
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: "act" });
    // 6. MCP with the token: a session of the environment, handed with act only.
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    const init = await mcpPost(keyed, COUNTER_MCP, INITIALIZE, bearer);
    expect(init.status).toBe(200);
    const mcpSession = init.headers.get("Mcp-Session-Id")!;
    const [sessionId, sessionToken] = [
      mcpSession.slice(0, mcpSession.indexOf(".")),
      mcpSession.slice(mcpSession.indexOf(".") + 1)
    ];
    expect(sessionToken).toMatch(/^act\./);
    const called = await mcpPost(
      keyed,
      COUNTER_MCP,
      rpc("tools/call", { name: "incr", arguments: {} }, 2),
      { ...bearer, "Mcp-Session-Id": mcpSession }
    );
    expect(called.status).toBe(200);
    const answer = await json<RpcAnswer>(called);
    expect(answer.result?.isError).toBe(false);
    expect(answer.result?.content?.[0]?.text).toBe("counter=1");
    // The session's token holds act, not control: no reset, no delete.
    const reset = await keyed(
      `/v1/sessions/${sessionId}/reset`,
      send("POST", {}, authed(sessionToken!))
    );
    expect(reset.status).toBe(403);
    // 7. The code is used up.
    const again = await exchange(keyed, clientId, code, verifier);
    expect(again.status).toBe(400);
    expect(await json(again)).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses the token at another environment's endpoint (401) and at a route that is no MCP endpoint (403)", async () => {
    const tokens = await authorize(keyed, `${BASE}${COUNTER_MCP}`, {
      credential: KEY
    });
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    const other = await mcpPost(keyed, STORY_MCP, INITIALIZE, bearer);
    expect(other.status).toBe(401);
    expect(other.headers.get("WWW-Authenticate")).toMatch(
      /resource_metadata=".*\/\.well-known\/oauth-protected-resource\/v1\/environments\/story\/mcp".*error="invalid_token"/
    );
    expect((await errorOf(other)).code).toBe("unauthorized");
    const create = await keyed(
      "/v1/sessions",
      send("POST", { environment: "counter" }, authed(tokens.access_token))
    );
    expect(create.status).toBe(403);
    // API keys keep working at the same endpoint, as for scripts.
    const script = await mcpPost(keyed, COUNTER_MCP, INITIALIZE, {
      "X-API-Key": KEY
    });
    expect(script.status).toBe(200);
    expect(script.headers.get("Mcp-Session-Id")).toMatch(/\.v1\./);
  });

  it("refuses a wrong PKCE verifier without using the code up", async () => {
    const clientId = await register(keyed);
    const { verifier, challenge } = await pkce();
    const consent = await openConsent(
      keyed,
      clientId,
      `${BASE}${COUNTER_MCP}`,
      challenge
    );
    const code = codeOf(
      await submitConsent(keyed, consent, { credential: KEY })
    );
    const wrong = await exchange(keyed, clientId, code, `${verifier}x`);
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ error: "invalid_grant" });
    const right = await exchange(keyed, clientId, code, verifier);
    expect(right.status).toBe(200);
  });

  it("rotates refresh tokens: each is used once", async () => {
    const tokens = await authorize(keyed, `${BASE}${COUNTER_MCP}`, {
      credential: KEY
    });
    const refresh = (token: string) =>
      keyed(
        "/oauth/token",
        form({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: tokens.clientId
        })
      );
    const next = await refresh(tokens.refresh_token);
    expect(next.status).toBe(200);
    const renewed = await json<{ access_token: string }>(next);
    const init = await mcpPost(keyed, COUNTER_MCP, INITIALIZE, {
      Authorization: `Bearer ${renewed.access_token}`
    });
    expect(init.status).toBe(200);
    const reused = await refresh(tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(await json(reused)).toMatchObject({ error: "invalid_grant" });
  });

  it("ends a key's chain when the key is no longer listed", async () => {
    const tokens = await authorize(keyed, `${BASE}${COUNTER_MCP}`, {
      credential: KEY
    });
    const rotated = withEnv({ ROOST_OAUTH: "1", ROOST_API_KEYS: "key-new" });
    const res = await rotated(
      "/oauth/token",
      form({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: tokens.clientId
      })
    );
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "invalid_grant" });
  });
});

describe("OAuth for a session's MCP endpoint", () => {
  it("is approved with the session's token, acts on its tools, and is refused elsewhere", async () => {
    const s = await createResetSession({ environment: "counter" }, open);
    const other = await createResetSession({ environment: "counter" }, open);
    const path = `/v1/sessions/${s.session_id}/mcp`;
    const first = await mcpPost(open, path, INITIALIZE, {});
    expect(first.status).toBe(401);
    expect(first.headers.get("WWW-Authenticate")).toContain(
      `resource_metadata="${BASE}/.well-known/oauth-protected-resource${path}"`
    );
    // Another session's token does not approve; this one's does.
    const clientId = await register(open);
    const { verifier, challenge } = await pkce();
    const consent = await openConsent(
      open,
      clientId,
      `${BASE}${path}`,
      challenge
    );
    const refused = await submitConsent(open, consent, {
      credential: other.token
    });
    expect(refused.status).toBe(403);
    const code = codeOf(
      await submitConsent(open, consent, { credential: s.token })
    );
    const tokens = await json<{ access_token: string }>(
      await exchange(open, clientId, code, verifier)
    );
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    const called = await mcpPost(
      open,
      path,
      rpc("tools/call", { name: "incr", arguments: {} }),
      bearer
    );
    expect(called.status).toBe(200);
    expect((await json<RpcAnswer>(called)).result?.content?.[0]?.text).toBe(
      "counter=1"
    );
    // Another session's endpoint: 401, so the client authorizes for it.
    const elsewhere = await mcpPost(
      open,
      `/v1/sessions/${other.session_id}/mcp`,
      rpc("tools/list"),
      bearer
    );
    expect(elsewhere.status).toBe(401);
    // The same session's other routes: beyond the token's reach.
    for (const [route, init] of [
      ["", {}],
      ["/reset", send("POST", {})],
      ["/tools/incr", send("POST", {})]
    ] as const) {
      const res = await open(`/v1/sessions/${s.session_id}${route}`, {
        ...init,
        headers: {
          ...(init as { headers?: Record<string, string> }).headers,
          ...bearer
        }
      });
      expect(res.status).toBe(403);
    }
    // Revoking act in the session refuses the OAuth token's tool calls too.
    const revoked = await open(
      `/v1/sessions/${s.session_id}/tokens/revoke`,
      send("POST", { scope: "act" }, authed(s.token))
    );
    expect(revoked.status).toBe(200);
    const after = await mcpPost(
      open,
      path,
      rpc("tools/call", { name: "incr", arguments: {} }),
      bearer
    );
    // Refused in the session, with the 401 that sends the client back to
    // authorize, challenge included.
    expect(after.status).toBe(401);
    expect(after.headers.get("WWW-Authenticate")).toMatch(
      /resource_metadata=.*error="invalid_token"/
    );
  });
});
