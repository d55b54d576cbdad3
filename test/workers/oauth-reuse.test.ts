// A code or refresh token presented a second time (OAuth 2.1's refresh
// token rotation, RFC 6819 5.2.2.3): someone holds a copy, so every
// refresh token of that grant is refused from then on, and other grants
// are untouched.

import { describe, expect, it } from "vitest";
import { BASE, json, withEnv } from "./helpers";
import {
  authorize,
  codeOf,
  exchange,
  form,
  openConsent,
  pkce,
  register,
  submitConsent,
  type Tokens
} from "./oauth-flow";

const KEY = "key-oauth-reuse";
const keyed = withEnv({ ROOST_OAUTH: "1", ROOST_API_KEYS: KEY });
const RESOURCE = `${BASE}/v1/environments/counter/mcp`;

const refresh = (clientId: string, token: string) =>
  keyed(
    "/oauth/token",
    form({
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: clientId
    })
  );

/** A refresh's answer: its tokens when 200, else the RFC 6749 error. */
const refreshed = async (clientId: string, token: string) => {
  const res = await refresh(clientId, token);
  const body = await json<
    Tokens & { error?: string; error_description?: string }
  >(res);
  return { status: res.status, ...body };
};

describe("a code or refresh token used twice revokes its grant", () => {
  it("refuses every refresh token of the chain once a used one comes back, and no other grant's", async () => {
    const first = await authorize(keyed, RESOURCE, { credential: KEY });
    const other = await authorize(keyed, RESOURCE, { credential: KEY });
    const second = await refreshed(first.clientId, first.refresh_token);
    expect(second.status).toBe(200);
    const third = await refreshed(first.clientId, second.refresh_token);
    expect(third.status).toBe(200);

    // The first refresh token again: a thief's copy, or its owner's.
    const reused = await refreshed(first.clientId, first.refresh_token);
    expect(reused).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(reused.error_description).toMatch(
      /already used.*every refresh token of its grant is revoked/
    );

    // The newest of the chain, never used, is refused as well.
    const newest = await refreshed(first.clientId, third.refresh_token);
    expect(newest).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(newest.error_description).toMatch(/grant was revoked/);

    // Another grant, of the same resource and key, goes on.
    const untouched = await refreshed(other.clientId, other.refresh_token);
    expect(untouched.status).toBe(200);
  });

  it("revokes the refresh tokens a code was traded for when the code comes back", async () => {
    const clientId = await register(keyed);
    const { verifier, challenge } = await pkce();
    const consent = await openConsent(keyed, clientId, RESOURCE, challenge);
    const code = codeOf(
      await submitConsent(keyed, consent, { credential: KEY })
    );
    const traded = await exchange(keyed, clientId, code, verifier);
    expect(traded.status).toBe(200);
    const tokens = await json<Tokens>(traded);

    const again = await exchange(keyed, clientId, code, verifier);
    expect(again.status).toBe(400);
    expect(await json(again)).toMatchObject({ error: "invalid_grant" });
    const after = await refreshed(clientId, tokens.refresh_token);
    expect(after).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(after.error_description).toMatch(/grant was revoked/);
  });
});
