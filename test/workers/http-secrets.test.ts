import { describe, expect, it } from "vitest";
import {
  createSession,
  errorOf,
  json,
  send,
  type TestSession,
  withEnv
} from "./helpers";

describe("API keys", () => {
  const via = withEnv({ ROOST_API_KEYS: "key-a, key-b" });
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

  it("require an API key to create a session when ROOST_API_KEYS is set", async () => {
    const none = await via(
      "/v1/sessions",
      send("POST", { environment: "counter" })
    );
    expect(none.status).toBe(401);
    expect((await errorOf(none)).code).toBe("unauthorized");
    const wrong = await via(
      "/v1/sessions",
      send(
        "POST",
        { environment: "counter" },
        {
          ...bearer("key-c"),
          "Content-Type": "application/json"
        }
      )
    );
    expect(wrong.status).toBe(403);
    expect((await errorOf(wrong)).code).toBe("forbidden");
    const session = await createSession(
      { environment: "counter" },
      via,
      bearer("key-b")
    );
    expect(session.token).toMatch(/^v1\./);
  });

  it("refuse a session token in place of an API key for creating sessions", async () => {
    const session = await createSession(
      { environment: "counter" },
      via,
      bearer("key-a")
    );
    const res = await via(
      "/v1/sessions",
      send(
        "POST",
        { environment: "counter" },
        {
          ...bearer(session.token),
          "Content-Type": "application/json"
        }
      )
    );
    expect(res.status).toBe(403);
  });

  it("admit to any session's routes", async () => {
    const session = await createSession(
      { environment: "counter" },
      via,
      bearer("key-a")
    );
    const reset = await via(
      `/v1/sessions/${session.session_id}/reset`,
      send(
        "POST",
        {},
        { ...bearer("key-b"), "Content-Type": "application/json" }
      )
    );
    expect(reset.status).toBe(200);
    const status = await via(`/v1/sessions/${session.session_id}`, {
      headers: bearer("key-a")
    });
    expect((await json(status)).episode).toBe(1);
  });

  it("stop admitting once rotated out", async () => {
    const session = await createSession(
      { environment: "counter" },
      via,
      bearer("key-a")
    );
    const rotated = withEnv({ ROOST_API_KEYS: "key-b" });
    const res = await rotated(`/v1/sessions/${session.session_id}`, {
      headers: bearer("key-a")
    });
    expect(res.status).toBe(403);
  });
});

describe("ROOST_SECRETS", () => {
  const old = withEnv({
    ROOST_DEV: undefined,
    ROOST_SECRETS: "k1:first-secret"
  });
  const both = withEnv({
    ROOST_DEV: undefined,
    ROOST_SECRETS: "k2:second-secret, k1:first-secret"
  });
  const onlyNew = withEnv({
    ROOST_DEV: undefined,
    ROOST_SECRETS: "k2:second-secret"
  });
  const tokenStatus = (via: typeof old, session: TestSession) =>
    via(`/v1/sessions/${session.session_id}`, {
      headers: { Authorization: `Bearer ${session.token}` }
    }).then((r) => r.status);

  it("signs with the first key and keeps old tokens valid while their kid is listed", async () => {
    const early = await createSession({ environment: "counter" }, old);
    expect(early.token).toMatch(/^v1\.k1\./);
    expect(await tokenStatus(both, early)).toBe(200);
    const late = await createSession({ environment: "counter" }, both);
    expect(late.token).toMatch(/^v1\.k2\./);
    expect(await tokenStatus(onlyNew, late)).toBe(200);
    expect(await tokenStatus(onlyNew, early)).toBe(403);
  });

  it("does not accept development tokens once secrets are set", async () => {
    const dev = await createSession();
    expect(await tokenStatus(old, dev)).toBe(403);
  });

  it("fails closed with 503 unavailable when unset and ROOST_DEV is not 1", async () => {
    const closed = withEnv({ ROOST_DEV: undefined, ROOST_SECRETS: undefined });
    const session = await createSession();
    const status = await closed(`/v1/sessions/${session.session_id}`, {
      headers: { Authorization: `Bearer ${session.token}` }
    });
    expect(status.status).toBe(503);
    const error = await errorOf(status);
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain("ROOST_SECRETS");
    const create = await closed(
      "/v1/sessions",
      send("POST", { environment: "counter" })
    );
    expect(create.status).toBe(503);
    expect((await closed("/health")).status).toBe(200);
    expect((await closed("/v1/environments")).status).toBe(200);
  });

  it("fails closed with 503 when ROOST_SECRETS is malformed", async () => {
    const broken = withEnv({ ROOST_DEV: undefined, ROOST_SECRETS: "no-colon" });
    const res = await broken(
      "/v1/sessions",
      send("POST", { environment: "counter" })
    );
    expect(res.status).toBe(503);
    expect((await errorOf(res)).message).toContain("ROOST_SECRETS");
  });
});
