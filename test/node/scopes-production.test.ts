import { describe, expect, it } from "vitest";
import { withProductionServer } from "./helpers/production-server";
import { catalogQuery, expectError, incrAction } from "./helpers/scoped-http";

// Scoped credentials as a deployment serves them: a wrangler dev of its own
// with ROOST_SECRETS and ROOST_API_KEYS and no ROOST_DEV, reached over real
// HTTP. The sockets, Aviary and MCP are in scopes-production-clients.test.ts.

const { http, key } = withProductionServer();

const sessionPath = (id: string, rest = "") => `/v1/sessions/${id}${rest}`;

describe("production mode: API keys on every route", () => {
  it("creation needs the key, taken as the bearer or as X-API-Key", async () => {
    const body = { environment: "counter" };
    expectError(
      await http.post("/v1/sessions", { none: true }, body),
      401,
      "unauthorized"
    );
    expectError(
      await http.post("/v1/sessions", { bearer: "not-the-key" }, body),
      403,
      "forbidden"
    );
    expectError(
      await http.post("/v1/sessions", { apiKey: "not-the-key" }, body),
      403,
      "forbidden"
    );
    for (const credential of [{ bearer: key }, { apiKey: key }]) {
      const made = await http.post("/v1/sessions", credential, body);
      expect(made.status, made.text).toBe(201);
      // Signed with the first kid of ROOST_SECRETS, not the development secret.
      expect(made.body.token).toMatch(/^v1\.k1\./);
    }
  });

  it("a session route and fork take the key both ways too", async () => {
    const { session_id: id, token } = await http.createSession("counter", key);
    for (const credential of [{ bearer: key }, { apiKey: key }]) {
      const status = await http.get(sessionPath(id), credential);
      expect(status.status, status.text).toBe(200);
      expect(status.body).toMatchObject({ environment: "counter" });
    }
    expectError(
      await http.get(sessionPath(id), { none: true }),
      401,
      "unauthorized"
    );
    expectError(
      await http.get(sessionPath(id), { apiKey: "wrong" }),
      403,
      "forbidden"
    );
    expect((await http.get(sessionPath(id), { bearer: token })).status).toBe(
      200
    );

    for (const credential of [{ bearer: key }, { apiKey: key }]) {
      const forked = await http.post(sessionPath(id, "/fork"), credential, {
        count: 1
      });
      expect(forked.status, forked.text).toBe(201);
      const [copy] = forked.body.sessions as {
        session_id: string;
        token: string;
      }[];
      const copied = await http.get(sessionPath(copy!.session_id), {
        bearer: copy!.token
      });
      expect(copied.status, copied.text).toBe(200);
    }
    // Forking makes sessions: with keys configured, the session's token alone is not enough.
    expectError(
      await http.post(
        sessionPath(id, "/fork"),
        { bearer: token },
        { count: 1 }
      ),
      403,
      "forbidden"
    );
  });
});

describe("production mode: minting", () => {
  it("mints every scope with the control token and with the key; observe cannot mint", async () => {
    const { session_id: id, token } = await http.createSession("counter", key);
    for (const with_ of [{ bearer: token }, { bearer: key }, { apiKey: key }]) {
      for (const scope of ["observe", "act", "grade", "control"]) {
        const before = Math.floor(Date.now() / 1000);
        const minted = await http.post(sessionPath(id, "/tokens"), with_, {
          scope
        });
        const after = Math.ceil(Date.now() / 1000);
        expect(minted.status, minted.text).toBe(201);
        expect(minted.body.scope).toBe(scope);
        expect(minted.body.token.startsWith(`${scope}.`)).toBe(true);
        // A day by default.
        const expires = Date.parse(minted.body.expires_at) / 1000;
        expect(expires).toBeGreaterThanOrEqual(before + 86_400);
        expect(expires).toBeLessThanOrEqual(after + 86_400);
        const status = await http.get(sessionPath(id), {
          bearer: minted.body.token
        });
        expect(status.status, status.text).toBe(200);
      }
    }
    const observe = await http.mint(id, "observe", { bearer: token });
    const refused = await http.post(
      sessionPath(id, "/tokens"),
      {
        bearer: observe
      },
      { scope: "observe" }
    );
    expectError(refused, 403, "forbidden", "control");
    expect(refused.body.token).toBeUndefined();
  });

  it("refuses a ttl out of range or an unknown scope with 400, minting nothing", async () => {
    const { session_id: id, token } = await http.createSession("counter", key);
    for (const body of [
      { scope: "observe", ttl_s: 0 },
      { scope: "observe", ttl_s: -5 },
      { scope: "observe", ttl_s: 2_592_001 },
      { scope: "observe", ttl_s: 1.5 },
      { scope: "observe", ttl_s: "60" },
      { scope: "admin" },
      { scope: "observe", extra: true }
    ]) {
      const answer = await http.post(
        sessionPath(id, "/tokens"),
        {
          bearer: token
        },
        body
      );
      expectError(answer, 400, "invalid_request");
      expect(answer.text).not.toMatch(/observe\.[0-9a-z]+\.\d+\.v1\./);
    }
    // The bounds themselves are accepted.
    await http.mint(id, "observe", { bearer: token }, 1);
    await http.mint(id, "observe", { bearer: token }, 2_592_000);
  });
});

describe("production mode: scopes over HTTP", () => {
  it("each scope reaches what it holds and is refused the rest, naming the scope needed", async () => {
    const { session_id: id, token } = await http.createSession("catalog", key);
    const control = { bearer: token };
    const observe = { bearer: await http.mint(id, "observe", control) };
    const act = { bearer: await http.mint(id, "act", control) };
    const grade = { bearer: await http.mint(id, "grade", control) };
    // act: steps and calls a tool; nothing that controls the session.
    const stepped = await http.post(
      sessionPath(id, "/step"),
      act,
      catalogQuery("q1")
    );
    expect(stepped.status, stepped.text).toBe(200);
    const called = await http.post(sessionPath(id, "/tools/query"), act, {
      arguments: { collection: "messages", text: "toy" }
    });
    expect(called.status, called.text).toBe(200);
    expectError(
      await http.post(sessionPath(id, "/reset"), act),
      403,
      "forbidden",
      "control"
    );
    expectError(
      await http.call("PATCH", sessionPath(id, "/state"), act, {
        key: "user_context",
        value: "a grader"
      }),
      403,
      "forbidden",
      "control"
    );
    expectError(
      await http.call("DELETE", sessionPath(id), act),
      403,
      "forbidden",
      "control"
    );
    expectError(
      await http.post(sessionPath(id, "/tokens"), act, { scope: "observe" }),
      403,
      "forbidden",
      "control"
    );

    // observe: reads everything a viewer needs; cannot step or call.
    for (const path of ["", "/state", "/events", "/messages", "/tools"]) {
      const read = await http.get(sessionPath(id, path), observe);
      expect(read.status, `${path}: ${read.text}`).toBe(200);
    }
    const events = await http.get(sessionPath(id, "/events"), observe);
    expect(
      (events.body.events as { type: string }[]).some((e) => e.type === "step")
    ).toBe(true);
    expectError(
      await http.post(sessionPath(id, "/step"), observe, catalogQuery("q2")),
      403,
      "forbidden",
      "act"
    );
    expectError(
      await http.post(sessionPath(id, "/tools/query"), observe, {
        arguments: { collection: "products" }
      }),
      403,
      "forbidden",
      "act"
    );
    const steps = (await http.get(sessionPath(id), observe)).body.steps;
    expect(steps).toBe(1);

    // The hidden store: grade alone, neither control nor an API key.
    const hidden = await http.get(sessionPath(id, "/hidden"), grade);
    expect(hidden.status, hidden.text).toBe(200);
    const raw = hidden.body.hidden.last_raw as { statement: string };
    expect(raw.statement).toContain("SELECT");
    // What the leak search below looks for is there for grade to see.
    expect(hidden.text).toContain("FROM catalog_");
    for (const credential of [
      observe,
      act,
      control,
      { bearer: key },
      { apiKey: key }
    ]) {
      expectError(
        await http.get(sessionPath(id, "/hidden"), credential),
        403,
        "forbidden",
        "grade"
      );
    }
    expectError(
      await http.post(sessionPath(id, "/step"), grade, catalogQuery("q3")),
      403,
      "forbidden",
      "act"
    );
    // grade reads as observe does.
    expect((await http.get(sessionPath(id, "/state"), grade)).status).toBe(200);

    // control: everything but the hidden store.
    const patched = await http.call(
      "PATCH",
      sessionPath(id, "/state"),
      control,
      {
        key: "user_context",
        value: "a cat owner"
      }
    );
    expect(patched.status, patched.text).toBe(200);

    // Whatever a non-grade credential was answered, the hidden store was not in it.
    const shown = http.seen.filter(
      (s) => s.who !== "grade" && s.path.includes(id)
    );
    expect(shown.length).toBeGreaterThan(10);
    const statementJson = JSON.stringify(raw.statement).slice(1, -1);
    for (const s of shown) {
      expect(s.text, `${s.who} ${s.method} ${s.path}`).not.toContain(
        statementJson
      );
      expect(s.text, `${s.who} ${s.method} ${s.path}`).not.toContain(
        "last_raw"
      );
      // Every statement the store kept names its table; no answer does.
      expect(s.text, `${s.who} ${s.method} ${s.path}`).not.toContain(
        "FROM catalog_"
      );
    }
  });
});

describe("production mode: expiry and revocation", () => {
  it("a token of ttl_s 2 works, then answers 401 once expired", async () => {
    const { session_id: id, token } = await http.createSession("counter", key);
    const short = {
      bearer: await http.mint(id, "observe", { bearer: token }, 2)
    };
    expect((await http.get(sessionPath(id), short)).status).toBe(200);
    await expect
      .poll(async () => (await http.get(sessionPath(id), short)).status, {
        timeout: 15_000,
        interval: 250
      })
      .toBe(401);
    expectError(
      await http.get(sessionPath(id, "/state"), short),
      401,
      "unauthorized"
    );
    // Expired is not wrong: the same session's other credentials carry on.
    expect((await http.get(sessionPath(id), { bearer: token })).status).toBe(
      200
    );
  });

  it("revoking a scope refuses its tokens (not others'), and the key survives every revocation", async () => {
    const { session_id: id, token } = await http.createSession("counter", key);
    const control = { bearer: token };
    const o1 = { bearer: await http.mint(id, "observe", control) };
    const o2 = { bearer: await http.mint(id, "observe", { apiKey: key }) };
    const act = { bearer: await http.mint(id, "act", control) };
    for (const o of [o1, o2])
      expect((await http.get(sessionPath(id), o)).status).toBe(200);

    const revoked = await http.post(
      sessionPath(id, "/tokens/revoke"),
      control,
      {
        scope: "observe"
      }
    );
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.scope).toBe("observe");
    expect(Number.isNaN(Date.parse(revoked.body.revoked_before))).toBe(false);
    expect(revoked.body.token).toBeUndefined();
    for (const o of [o1, o2])
      expectError(await http.get(sessionPath(id), o), 401, "unauthorized");
    const o3 = { bearer: await http.mint(id, "observe", control) };
    expect((await http.get(sessionPath(id), o3)).status).toBe(200);
    expect(
      (await http.post(sessionPath(id, "/step"), act, incrAction())).status
    ).toBe(200);

    // Revoking control with a control token hands back a fresh one.
    const again = await http.post(sessionPath(id, "/tokens/revoke"), control, {
      scope: "control"
    });
    expect(again.status, again.text).toBe(200);
    const fresh = { bearer: again.body.token as string };
    expect(fresh.bearer).toMatch(/^control\./);
    expectError(await http.get(sessionPath(id), control), 401, "unauthorized");
    expectError(
      await http.post(sessionPath(id, "/tokens"), control, { scope: "act" }),
      401,
      "unauthorized"
    );
    expect((await http.get(sessionPath(id), fresh)).status).toBe(200);
    await http.mint(id, "act", fresh);
    const reset = await http.post(sessionPath(id, "/reset"), fresh);
    expect(reset.status, reset.text).toBe(200);

    // An API key is the operator's: no session's revocation reaches it, and
    // revoking with one answers no token (the key is still good).
    const byKey = await http.post(
      sessionPath(id, "/tokens/revoke"),
      { apiKey: key },
      {
        scope: "control"
      }
    );
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.body.token).toBeUndefined();
    expectError(await http.get(sessionPath(id), fresh), 401, "unauthorized");
    for (const credential of [{ bearer: key }, { apiKey: key }]) {
      expect((await http.get(sessionPath(id), credential)).status).toBe(200);
      expect(
        (
          await http.post(
            sessionPath(id, "/step"),
            credential,
            incrAction("c9")
          )
        ).status
      ).toBe(200);
    }
  });
});
