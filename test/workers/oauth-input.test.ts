import { describe, expect, it } from "vitest";
import { BASE, json, send, withEnv } from "./helpers";
import {
  form,
  openConsent,
  pkce,
  REDIRECT,
  register,
  submitConsent
} from "./oauth-flow";

const open = withEnv({ ROOST_OAUTH: "1" });
const COUNTER_MCP = "/v1/environments/counter/mcp";

describe("OAuth endpoints refuse bad input with RFC 6749 errors and change nothing", () => {
  it("registration", async () => {
    const bad = async (body: unknown, error: string) => {
      const res = await open("/oauth/register", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body)
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error });
    };
    await bad("{", "invalid_client_metadata");
    await bad({}, "invalid_client_metadata");
    await bad(
      { redirect_uris: ["javascript:alert(1)"] },
      "invalid_redirect_uri"
    );
    await bad(
      { redirect_uris: ["http://evil.example/cb"] },
      "invalid_redirect_uri"
    );
    await bad(
      { redirect_uris: ["https://a.example/cb#x"] },
      "invalid_redirect_uri"
    );
    await bad(
      { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
      "invalid_client_metadata"
    );
  });

  it("authorization: an unknown client or redirect gets a page, the rest go back to the client", async () => {
    const clientId = await register(open);
    const { challenge } = await pkce();
    const query = (fields: Record<string, string>) =>
      `/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: `${BASE}${COUNTER_MCP}`,
        state: "st-1",
        ...fields
      })}`;
    const forged = await open(query({ client_id: `${clientId}x` }));
    expect(forged.status).toBe(400);
    expect(forged.headers.get("Location")).toBeNull();
    const elsewhere = await open(
      query({ redirect_uri: "https://evil.example/cb" })
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get("Location")).toBeNull();
    for (const [fields, error] of [
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "control" }, "invalid_scope"],
      [{ resource: `${BASE}/v1/environments/nope/mcp` }, "invalid_target"],
      [
        { resource: "https://other.example/v1/environments/counter/mcp" },
        "invalid_target"
      ],
      [{ resource: `${BASE}/v1/sessions` }, "invalid_target"]
    ] as const) {
      const res = await open(query(fields));
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get("Location")!);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe("st-1");
      expect(location.searchParams.get("iss")).toBe(BASE);
    }
  });

  it("consent: no cookie, a forged form, another origin, and deny", async () => {
    const clientId = await register(open);
    const { challenge } = await pkce();
    const consent = await openConsent(
      open,
      clientId,
      `${BASE}${COUNTER_MCP}`,
      challenge
    );
    const noCookie = await submitConsent(open, {
      ...consent,
      cookie: "roost_oauth_consent=other"
    });
    expect(noCookie.status).toBe(403);
    expect(noCookie.headers.get("Location")).toBeNull();
    const forged = await submitConsent(open, {
      ...consent,
      consent: `${consent.consent}x`
    });
    expect(forged.status).toBe(400);
    const init = form({ consent: consent.consent, decision: "allow" });
    const crossSite = await open("/oauth/authorize", {
      ...init,
      headers: {
        ...init.headers,
        Cookie: consent.cookie,
        Origin: "https://evil.example"
      }
    });
    expect(crossSite.status).toBe(403);
    const denied = await submitConsent(open, consent, { decision: "deny" });
    expect(denied.status).toBe(303);
    expect(
      new URL(denied.headers.get("Location")!).searchParams.get("error")
    ).toBe("access_denied");
  });

  it("token endpoint", async () => {
    const bad = async (
      init: RequestInit & { headers?: Record<string, string> },
      status: number,
      error: string
    ) => {
      const res = await open("/oauth/token", init);
      expect(res.status).toBe(status);
      expect(await json(res)).toMatchObject({ error });
    };
    await bad(
      send("POST", { grant_type: "authorization_code" }),
      400,
      "invalid_request"
    );
    await bad(form({ grant_type: "password" }), 400, "unsupported_grant_type");
    await bad(
      form({ grant_type: "authorization_code" }),
      400,
      "invalid_request"
    );
    await bad(
      form({
        grant_type: "authorization_code",
        code: "x",
        redirect_uri: REDIRECT,
        client_id: "nobody",
        code_verifier: "v".repeat(43)
      }),
      401,
      "invalid_client"
    );
    const clientId = await register(open);
    await bad(
      form({
        grant_type: "authorization_code",
        code: "forged.v1.dev.AAAA",
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: "v".repeat(43)
      }),
      400,
      "invalid_grant"
    );
    await bad(
      {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=refresh_token&grant_type=refresh_token"
      },
      400,
      "invalid_request"
    );
  });
});
