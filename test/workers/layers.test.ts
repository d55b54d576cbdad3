// A worker without layers is the session core: the layers' routes are not
// there, its sessions refuse the layers' operations over every way in, and
// its commits write nothing a layer would have (re-scoring's rows). The
// test worker's own sessions (SESSIONS) serve every layer, as before.

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { counter } from "../../examples/counter/index";
import { allLayers, taskStats } from "../../src/layers";
import { redeem } from "../../src/layers/oauth/ledger";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import { createRoost } from "../../src/roost";
import { hello } from "../fixtures/hello-layer";
import { regraded } from "../fixtures/regraded";
import { api, ok, toolAction } from "./session-helpers";

const core = createRoost({ environments: [counter] });
const full = createRoost({ environments: [counter], layers: allLayers() });

const get = (app: typeof core.app, path: string, init?: RequestInit) =>
  app.request(path, init, env);

const coreSession = async (environment: string) => {
  const id = env.CORE.newUniqueId();
  const stub = api(env.CORE.get(id));
  ok(
    await stub.create({
      sessionId: id.toString(),
      environment,
      task: undefined
    })
  );
  ok(await stub.reset({}));
  return stub;
};

describe("a worker without layers", () => {
  it("serves the core's routes and none of the layers'", async () => {
    expect((await get(core.app, "/health")).status).toBe(200);
    expect((await get(core.app, "/v1/environments")).status).toBe(200);
    for (const path of [
      "/openapi.json",
      "/v1/environments/counter/mcp",
      "/v1/environments/counter/aviary/info",
      "/v1/environments/counter/openenv/health",
      "/v1/environments/counter/task-stats"
    ]) {
      expect((await get(core.app, path)).status, path).toBe(404);
      // The same paths, served by a worker with every layer.
      expect((await get(full.app, path)).status, path).not.toBe(404);
    }
    // OAuth's metadata, with OAuth turned on: only where the layer is.
    const metadata = "/.well-known/oauth-authorization-server";
    const on = { ...env, ROOST_OAUTH: "1" };
    expect((await core.app.request(metadata, undefined, on)).status).toBe(404);
    expect((await full.app.request(metadata, undefined, on)).status).toBe(200);
  });

  it("answers 404 for a layer's session route, 405 for its own with another method", async () => {
    const created = await get(core.app, "/v1/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "counter" })
    });
    expect(created.status).toBe(201);
    const { session_id, token } = (await created.json()) as {
      session_id: string;
      token: string;
    };
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const rescore = await get(core.app, `/v1/sessions/${session_id}/rescore`, {
      ...auth,
      method: "POST"
    });
    expect(rescore.status).toBe(404);
    const reset = await get(core.app, `/v1/sessions/${session_id}/reset`, auth);
    expect(reset.status).toBe(405);
    expect(reset.headers.get("Allow")).toBe("POST");
  });

  it("refuses a layer's operation on its sessions, over RPC and over the socket's op frame", async () => {
    const stub = await coreSession("counter");
    for (const name of ["startTask", "rescore", "startChat"]) {
      const refused = (await stub.op(
        name as never,
        {} as never,
        SERVER_GRANT
      )) as {
        ok: boolean;
        error?: { code: string; message: string };
      };
      expect(refused.ok).toBe(false);
      expect(refused.error).toEqual({
        code: "invalid_request",
        message: `Unknown operation "${name}".`
      });
    }
    // The core's own operations run as ever.
    ok(await stub.step({ action: toolAction("incr") }));
    // Over the session socket of a core worker (its SESSIONS bound to CORE).
    const coreEnv = { ...env, SESSIONS: env.CORE };
    const created = (await (
      await core.app.request(
        "/v1/sessions",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ environment: "counter" })
        },
        coreEnv
      )
    ).json()) as { session_id: string; token: string };
    const upgraded = await core.app.request(
      `/v1/sessions/${created.session_id}/ws`,
      {
        headers: {
          Upgrade: "websocket",
          "Sec-WebSocket-Protocol": `roost.v1, roost.token.${created.token}`
        }
      },
      coreEnv
    );
    expect(upgraded.status).toBe(101);
    const ws = upgraded.webSocket!;
    const replies: { id?: string; ok?: boolean; error?: { code: string } }[] =
      [];
    const replied = new Promise<void>((resolve) => {
      ws.addEventListener("message", (event) => {
        const frame = JSON.parse(String(event.data));
        if (frame.type === "reply") {
          replies.push(frame);
          resolve();
        }
      });
    });
    ws.accept();
    ws.send(
      JSON.stringify({ type: "op", id: "o", op: "startTask", input: {} })
    );
    await replied;
    expect(replies[0]).toMatchObject({
      id: "o",
      ok: false,
      error: { code: "invalid_request" }
    });
    ws.close(1000);
  });

  it("writes no re-scoring rows for an environment with rescoring rubrics, which a worker with rescore() writes", async () => {
    const stub = await coreSession("regraded");
    ok(await stub.step({ action: toolAction("guess", { n: 1 }) }));
    const rows = await runInDurableObject(stub.raw, (_o, state) =>
      state.storage.sql
        .exec(
          "SELECT count(*) AS n FROM sqlite_schema WHERE name = 'rescore_log'"
        )
        .one()
    );
    const written =
      rows.n === 0
        ? 0
        : await runInDurableObject(
            stub.raw,
            (_o, state) =>
              state.storage.sql
                .exec("SELECT count(*) AS n FROM rescore_log")
                .one().n
          );
    expect(written).toBe(0);
    // The same steps in the test worker's sessions, which have every layer.
    const id = env.SESSIONS.newUniqueId();
    const layered = api(env.SESSIONS.get(id));
    ok(
      await layered.create({
        sessionId: id.toString(),
        environment: "regraded",
        task: undefined
      })
    );
    ok(await layered.reset({}));
    ok(await layered.step({ action: toolAction("guess", { n: 1 }) }));
    const kept = await runInDurableObject(
      layered.raw,
      (_o, state) =>
        state.storage.sql.exec("SELECT count(*) AS n FROM rescore_log").one().n
    );
    expect(kept).toBeGreaterThan(0);
  });
});

describe("a layer's own Durable Object class", () => {
  it("refuses a fork at a past step without the branching layer, naming it, and still forks as it stands", async () => {
    const stub = await coreSession("counter");
    for (let i = 0; i < 2; i++)
      ok(await stub.step({ action: toolAction("incr", {}) }));
    const refused = await stub.op(
      "forkBegin",
      { count: 1, step: 1 },
      SERVER_GRANT
    );
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "conflict", details: { step: 1 } }
    });
    expect(JSON.stringify(refused)).toContain("branching()");
    const live = await stub.op(
      "forkBegin",
      { count: 1, step: 2 },
      SERVER_GRANT
    );
    expect(live).toMatchObject({ ok: true });
  });

  it("is asked for by name when the worker does not bind it: the task statistics answer 503 saying how", async () => {
    const worker = createRoost({
      environments: [counter],
      layers: [taskStats()]
    });
    const res = await worker.app.request(
      "/v1/environments/counter/task-stats",
      undefined,
      { ...env, TASK_STATS: undefined }
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('name = "TASK_STATS"');
    expect(body.error.message).toContain("export { TaskStats }");
    // Bound, the same worker answers.
    const bound = await worker.app.request(
      "/v1/environments/counter/task-stats",
      undefined,
      env
    );
    expect(bound.status).toBe(200);
    // OAuth's ledger says the same of its own binding.
    expect(() =>
      redeem({ ...env, OAUTH_LEDGER: undefined } as never, "code", "f", 1, 1)
    ).toThrow(/export \{ OAuthLedger \}.*name = "OAUTH_LEDGER"/);
  });
});

describe("a session woken by a worker without the layer that set its timer", () => {
  it("drops the layer's due timer and runs its own", async () => {
    const stub = await coreSession("counter");
    await runInDurableObject(stub.raw, (o) => {
      const shared = (
        o as unknown as {
          runtime: {
            shared: {
              schedule: { set(kind: string, at: number): void };
              now(): number;
            };
          };
        }
      ).runtime.shared;
      // MCP's task lease, as a worker with mcp() would have left it.
      shared.schedule.set("task", shared.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub.raw)).toBe(true);
    const timers = await runInDurableObject(stub.raw, (_o, state) =>
      state.storage.sql
        .exec("SELECT name FROM sqlite_schema WHERE name = 'schedule'")
        .toArray().length === 0
        ? []
        : state.storage.sql.exec("SELECT kind FROM schedule").toArray()
    );
    expect(timers.map((t) => t.kind)).not.toContain("task");
    // The session serves on.
    ok(await stub.step({ action: toolAction("incr") }));
  });
});

describe("a layer written from the package's exports", () => {
  it("adds a route, an operation every transport reaches, and an observer of commits", async () => {
    const worker = createRoost({ environments: [counter], layers: [hello()] });
    const helloEnv = { ...env, SESSIONS: env.HELLO };
    const ask = (path: string, init?: RequestInit) =>
      worker.app.request(path, init, helloEnv);
    const created = (await (
      await ask("/v1/sessions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ environment: "counter" })
      })
    ).json()) as { session_id: string; token: string };
    const auth = { authorization: `Bearer ${created.token}` };
    const S = `/v1/sessions/${created.session_id}`;
    expect(
      (await ask(`${S}/reset`, { method: "POST", headers: auth })).status
    ).toBe(200);
    const step = JSON.stringify({
      action: {
        role: "assistant",
        tool_calls: [
          {
            id: "c",
            type: "function",
            function: { name: "incr", arguments: "{}" }
          }
        ]
      }
    });
    expect(
      (
        await ask(`${S}/step`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: step
        })
      ).status
    ).toBe(200);
    const res = await ask(`${S}/hello`, { headers: auth });
    expect(res.status).toBe(200);
    // The observer saw the reset and the step (and the creation's commit, if any).
    const greeting = (await res.json()) as {
      greeting: string;
      commits: number;
    };
    expect(greeting.greeting).toBe("Hello tester, from counter at step 1.");
    expect(greeting.commits).toBeGreaterThanOrEqual(2);
    // Unauthenticated: refused like any session route.
    expect((await ask(`${S}/hello`)).status).toBe(401);
  });
});

// The environments this file's sessions use are the test worker's (test/worker.ts).
void regraded;
