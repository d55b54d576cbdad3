// Scoped tokens through the client against the real runtime under wrangler
// dev: minting, reading and acting with one, the 403 that names the scope
// a call needs, revocation, and the client's own table of what each scope
// may do, checked against the server's answers.
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  ACTION_SCOPES,
  createClient,
  RoostClientError,
  type RoostSession,
  type SessionAction,
  scopeOfCredential
} from "../../src/client/index";

const baseUrl = inject("baseUrl");
const client = createClient({ baseUrl });
const created: RoostSession[] = [];

const counter = async () => {
  const s = await client.createSession({ environment: "counter" });
  created.push(s);
  await s.reset();
  return s;
};

const incr = (id: string) => ({
  tool_calls: [
    {
      id,
      type: "function" as const,
      function: { name: "incr", arguments: "{}" }
    }
  ]
});

afterAll(async () => {
  for (const s of created) await s.delete().catch(() => undefined);
});

/** The error a call rejects with. */
const failure = async (call: Promise<unknown>): Promise<RoostClientError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e
  );
  expect(error).toBeInstanceOf(RoostClientError);
  return error as RoostClientError;
};

describe("scoped tokens through the client", () => {
  it("mints an observe token that reads and watches but is refused a step with a 403 naming act", async () => {
    const owner = await counter();
    await owner.step(incr("a"));
    const before = Date.now();
    const minted = await owner.mintToken({ scope: "observe", ttl: 3600 });
    const after = Date.now();
    expect(minted.scope).toBe("observe");
    expect(minted.token.startsWith("observe.")).toBe(true);
    // The expiry is the server's clock plus the ttl, to the second.
    const expires = Date.parse(minted.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(
      Math.floor(before / 1000) * 1000 + 3_600_000
    );
    expect(expires).toBeLessThanOrEqual(
      Math.ceil(after / 1000) * 1000 + 3_600_000
    );

    const viewer = client.session(owner.id, minted.token);
    expect(viewer.scope).toBe("observe");
    expect(viewer.can("read")).toBe(true);
    expect(viewer.can("step")).toBe(false);
    expect((await viewer.status()).steps).toBe(1);
    expect(await viewer.state()).toEqual(await owner.state());

    const refused = await failure(viewer.step(incr("b")));
    expect(refused).toMatchObject({
      code: "forbidden",
      status: 403,
      details: { scope: "act", granted: "observe" }
    });
    // Refused, so nothing changed.
    expect((await owner.status()).steps).toBe(1);
  });

  it("mints an act token that steps and calls tools, but is refused a reset and a fork", async () => {
    const owner = await counter();
    const { token } = await owner.mintToken({ scope: "act" });
    const agent = client.session(owner.id, token);
    expect(agent.scope).toBe("act");
    const stepped = await agent.step(incr("a"));
    expect(stepped.reward).toBeTypeOf("number");
    expect((await owner.status()).steps).toBe(1);
    expect(await failure(agent.reset())).toMatchObject({
      code: "forbidden",
      status: 403,
      details: { scope: "control", granted: "act" }
    });
    expect(await failure(agent.fork(1))).toMatchObject({
      code: "forbidden",
      details: { scope: "control" }
    });
  });

  it("revoking observe refuses the observe handle with 401 while the owner and an act token go on", async () => {
    const owner = await counter();
    const viewer = client.session(
      owner.id,
      (await owner.mintToken({ scope: "observe" })).token
    );
    const agent = client.session(
      owner.id,
      (await owner.mintToken({ scope: "act" })).token
    );
    await viewer.status();
    const revoked = await owner.revokeTokens("observe");
    expect(revoked.scope).toBe("observe");
    expect(revoked.token).toBeUndefined();
    expect(Number.isNaN(Date.parse(revoked.revokedBefore))).toBe(false);
    expect(await failure(viewer.status())).toMatchObject({
      code: "unauthorized",
      status: 401
    });
    await agent.step(incr("a"));
    expect((await owner.status()).steps).toBe(1);
    // A token minted after the cutoff works again.
    const fresh = client.session(
      owner.id,
      (await owner.mintToken({ scope: "observe" })).token
    );
    expect((await fresh.status()).steps).toBe(1);
  });

  it("revoking control with the handle's own token switches it to the fresh one, and the old one is refused", async () => {
    const owner = await counter();
    const old = owner.token;
    const revoked = await owner.revokeTokens("control");
    expect(revoked.token).toBeTypeOf("string");
    expect(owner.token).toBe(revoked.token);
    expect(owner.scope).toBe("control");
    // The reads and the writes of the same handle both use it.
    await owner.step(incr("a"));
    expect((await owner.status()).steps).toBe(1);
    expect(await failure(client.session(owner.id, old).status())).toMatchObject(
      { code: "unauthorized", status: 401 }
    );
  });

  it("reads the hidden store with a grade token only", async () => {
    const owner = await counter();
    const grader = client.session(
      owner.id,
      (await owner.mintToken({ scope: "grade" })).token
    );
    expect(grader.scope).toBe("grade");
    expect(await grader.hidden()).toMatchObject({ hidden: {} });
    expect(await failure(owner.hidden())).toMatchObject({
      code: "forbidden",
      details: { scope: "grade", granted: "control" }
    });
  });

  it("refuses a bad mint with a 400 and mints nothing", async () => {
    const owner = await counter();
    expect(
      await failure(owner.mintToken({ scope: "observe", ttl: 0 }))
    ).toMatchObject({ code: "invalid_request", status: 400 });
    expect(
      await failure(
        owner.mintToken({ scope: "everything" as "observe", ttl: 60 })
      )
    ).toMatchObject({ code: "invalid_request", status: 400 });
  });

  it("mints a token for one agent of a multi-agent session, which steps as that agent", async () => {
    const owner = await client.createSession({ environment: "tictactoe" });
    created.push(owner);
    await owner.reset();
    const minted = await owner.mintToken({ scope: "act", agent: "x" });
    expect(minted).toMatchObject({ scope: "act", agent: "x" });
    expect(minted.token.startsWith("act~x.")).toBe(true);
    expect(scopeOfCredential(minted.token)).toBe("act");
    const x = client.session(owner.id, minted.token);
    const mark = {
      tool_calls: [
        {
          id: "m1",
          type: "function" as const,
          function: { name: "mark", arguments: '{"cell":5}' }
        }
      ]
    };
    expect(await x.step(mark)).toMatchObject({ agent: "x", turn: ["o"] });
  });

  it("reads a credential's scope from the token: scoped, first token and API key alike", async () => {
    const owner = await counter();
    expect(scopeOfCredential(owner.token)).toBe("control");
    expect(scopeOfCredential("an-api-key")).toBe("control");
    for (const scope of ["observe", "act", "grade", "control"] as const) {
      const { token } = await owner.mintToken({ scope, ttl: 60 });
      expect(scopeOfCredential(token)).toBe(scope);
    }
  });

  it("the client's table of the scope each action needs is the server's", async () => {
    const owner = await counter();
    const viewer = client.session(
      owner.id,
      (await owner.mintToken({ scope: "observe" })).token
    );
    // Each attempt with an observe token: the server names what it needs.
    const attempts: Partial<Record<SessionAction, () => Promise<unknown>>> = {
      step: () => viewer.step(incr("x")),
      call: () => viewer.call("incr"),
      cancelRun: () => viewer.cancelRun("run-none"),
      reset: () => viewer.reset(),
      run: () => viewer.startRun("hello"),
      fork: () => viewer.fork(1),
      editState: () => viewer.patchState({ key: "count", value: 5 }),
      editStore: () => viewer.add("notes", "n", { objects: [{ text: "x" }] }),
      delete: () => viewer.delete(),
      mintToken: () => viewer.mintToken({ scope: "observe" }),
      revokeTokens: () => viewer.revokeTokens("observe"),
      hidden: () => viewer.hidden()
    };
    for (const [action, attempt] of Object.entries(attempts)) {
      const error = await failure(attempt());
      expect({ action, code: error.code, details: error.details }).toEqual({
        action,
        code: "forbidden",
        details: {
          scope: ACTION_SCOPES[action as SessionAction],
          granted: "observe"
        }
      });
    }
    const chat = await fetch(`${baseUrl}/v1/sessions/${owner.id}/chat`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${viewer.token}`,
        "content-type": "application/json"
      },
      body: JSON.stringify({
        id: "chat-1",
        messages: [
          {
            id: "m1",
            role: "user",
            parts: [{ type: "text", text: "hello" }]
          }
        ]
      })
    });
    expect(chat.status).toBe(403);
    expect(await chat.json()).toMatchObject({
      error: { code: "forbidden", details: { scope: ACTION_SCOPES.chat } }
    });
    // Nothing any of them tried happened.
    expect(await owner.status()).toMatchObject({ steps: 0 });
  });
});
