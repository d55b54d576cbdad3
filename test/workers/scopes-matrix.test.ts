// Every operation a client may run, over HTTP (the chat's route included),
// the session socket and MCP (where MCP has a method for it), and Aviary's
// env_id, with a credential of every scope, an expired one and a revoked
// one. The
// operations come from the table (op-reaches.case.ts is keyed by it), so a
// new operation is in the matrix before it can typecheck; what each
// credential may do comes from the operation's own `scope`, checked here
// against the scopes' definition rather than copied.
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { signScopedToken } from "../../src/http/scoped-token";
import { signingKeys } from "../../src/http/secrets";
import {
  allows,
  SCOPES,
  type Scope,
  SERVER_GRANT
} from "../../src/protocol/scopes";
import type { OperationName } from "../../src/session/operations";
import { call, json, send, type TestSession } from "./helpers";
import {
  INTERNAL,
  type Prepared,
  prepare,
  REACHES,
  type Reach,
  releaseHeldTasks
} from "./op-reaches.case";
import { events, ok } from "./session-helpers";
import { OPERATIONS } from "./tables";
import { type Frame, openSocket } from "./ws-helpers";

type Credential = Scope | "expired" | "revoked";
const CREDENTIALS: readonly Credential[] = [...SCOPES, "expired", "revoked"];

const mint = async (s: TestSession, scope: Scope): Promise<string> => {
  const res = await s.call("/tokens", send("POST", { scope, ttl_s: 600 }));
  expect(res.status).toBe(201);
  return (await json<{ token: string }>(res)).token;
};

/** A token of `credential` for the prepared session. */
const tokenFor = async (p: Prepared, credential: Credential) => {
  if (credential === "expired")
    // Genuine, of the most able scope, and a second past its expiry.
    return signScopedToken(await signingKeys(env as never), p.s.session_id, {
      scope: "control",
      issuedAt: Date.now() - 10_000,
      expiresAt: Math.floor(Date.now() / 1000) - 1
    });
  if (credential === "revoked") {
    const act = await mint(p.s, "act");
    const res = await p.s.call(
      "/tokens/revoke",
      send("POST", { scope: "act" })
    );
    expect(res.status).toBe(200);
    return act;
  }
  return mint(p.s, credential);
};

/** The same request the prepared session's token would send, with `token`. */
const asToken = (p: Prepared, token: string): Prepared => ({
  ...p,
  s: {
    ...p.s,
    token,
    call: (path, init = {}) =>
      p.s.call(path, {
        ...init,
        headers: {
          ...(init.headers as Record<string, string>),
          Authorization: `Bearer ${token}`
        }
      })
  }
});

/** What a refusal must leave as it was: the log and the state. */
const footprint = async (p: Prepared) => ({
  events: (await events(p.stub)).length,
  state: ok(await p.stub.op("readState", {}, SERVER_GRANT))
});

type Outcome =
  | { ok: true }
  | { ok: false; code: string; details?: unknown; status?: number };

const overHttp = async (
  reach: Reach,
  p: Prepared
): Promise<Outcome | undefined> => {
  if (typeof reach.http === "string") return undefined;
  const res = await reach.http.send(p);
  if (res.status < 300) {
    await res.body?.cancel();
    return { ok: true };
  }
  const body = await json<{ error: { code: string; details?: unknown } }>(res);
  return { ok: false, status: res.status, ...body.error };
};

const overSocket = async (
  name: OperationName,
  reach: Reach,
  p: Prepared
): Promise<Outcome | { closed: number }> => {
  const sock = await openSocket(p.s.session_id, p.s.token);
  const opened = await Promise.race([
    sock.until((f) => f.some((x) => x.type === "session.snapshot")),
    sock.closed
  ]);
  if ("code" in opened) return { closed: opened.code };
  sock.send({ type: "op", id: "m1", op: name, input: reach.input(p) });
  const frames = await sock.until((f) => f.some((x) => x.id === "m1"));
  sock.ws.close();
  const reply = frames.find((f) => f.id === "m1") as Frame & {
    ok: boolean;
    error?: { code: string; details?: unknown };
  };
  return reply.ok ? { ok: true } : { ok: false, ...reply.error! };
};

/** MCP over the session's own route (`/v1/sessions/:id/mcp`), for the operations MCP has a method for. */
const overMcp = async (
  reach: Reach,
  p: Prepared
): Promise<Outcome | undefined> => {
  if (typeof reach.mcp === "string") return undefined;
  const res = await p.s.call(
    "/mcp",
    send("POST", {
      jsonrpc: "2.0",
      id: 1,
      method: reach.mcp.method,
      params: reach.mcp.params(p)
    })
  );
  if (res.status >= 300) {
    const body = await json<{ error: { code: string } }>(res);
    return { ok: false, status: res.status, ...body.error };
  }
  // A refused call is a JSON-RPC error carrying Roost's own error.
  const body = await json<{
    error?: { data?: { code: string; details?: unknown } };
  }>(res);
  return body.error === undefined
    ? { ok: true }
    : { ok: false, ...body.error.data! };
};

const CLIENT = (Object.keys(OPERATIONS) as OperationName[]).filter(
  (n) => REACHES[n] !== INTERNAL
);

// Tasks held running for a cancel finish once the file is done.
afterAll(releaseHeldTasks);

describe("every operation, every transport, every credential", () => {
  it.each(CLIENT)(
    "%s",
    async (name) => {
      const reach = REACHES[name] as Reach;
      const need = OPERATIONS[name].scope;
      // Refusals change nothing, so they share one session; each admitted
      // call that writes gets a fresh one.
      const shared = await prepare({ ...reach, scope: undefined });
      // A run still going writes events of its own: let it end first, so a
      // refusal's footprint is the refusal's alone.
      if (shared.runId !== undefined)
        ok(
          await shared.stub.op(
            "readRun",
            { run_id: shared.runId, wait: 30 },
            SERVER_GRANT
          )
        );
      const fresh = () => prepare({ ...reach, scope: undefined });
      for (const credential of CREDENTIALS) {
        const admitted =
          credential !== "expired" &&
          credential !== "revoked" &&
          allows(credential, need);
        const writes = OPERATIONS[name].mutates || name === "cancelRun";
        for (const transport of ["http", "socket", "mcp"] as const) {
          const base = admitted && writes ? await fresh() : shared;
          const p = asToken(base, await tokenFor(base, credential));
          const before = admitted ? undefined : await footprint(p);
          const got =
            transport === "http"
              ? await overHttp(reach, p)
              : transport === "mcp"
                ? await overMcp(reach, p)
                : await overSocket(name, reach, p);
          if (got === undefined) continue;
          const where = `${name} over ${transport} with ${credential}`;
          if (admitted) expect(got, where).toEqual({ ok: true });
          else if (credential === "expired" || credential === "revoked")
            expect(got, where).toEqual(
              transport === "socket"
                ? { closed: 4401 }
                : // Only the session knows a revocation; MCP answers it
                  // with the same 401 as the worker's own checks.
                  expect.objectContaining({
                    status: 401,
                    code: "unauthorized"
                  })
            );
          // A model token's socket is refused at its opening: it sees
          // nothing of the session, so it has no socket to send on.
          else if (credential === "model" && transport === "socket")
            expect(got, where).toEqual({ closed: 4403 });
          else
            expect(got, where).toMatchObject({
              ok: false,
              code: "forbidden",
              details: { scope: need, granted: credential },
              ...(transport === "http" ? { status: 403 } : {})
            });
          if (before !== undefined)
            expect(await footprint(p), `${where} changed nothing`).toEqual(
              before
            );
        }
      }
    },
    120_000
  );

  it("mints only with control: the minting route refuses every other scope", async () => {
    const p = await prepare({ ...(REACHES.status as Reach), scope: undefined });
    for (const scope of ["observe", "act", "grade"] as const) {
      const scoped = asToken(p, await mint(p.s, scope));
      const res = await scoped.s.call(
        "/tokens",
        send("POST", { scope: "observe" })
      );
      expect(res.status, scope).toBe(403);
      expect((await json<{ error: unknown }>(res)).error).toMatchObject({
        code: "forbidden",
        details: { scope: "control", granted: scope }
      });
    }
    const control = asToken(p, await mint(p.s, "control"));
    expect(
      (await control.s.call("/tokens", send("POST", { scope: "act" }))).status
    ).toBe(201);
  });
});

describe("Aviary's env_id carries its token's scope", () => {
  const aviary = (path: string, body: unknown) =>
    call(`/v1/environments/lab/aviary/${path}`, send("POST", body));
  const bump = {
    role: "assistant",
    content: null,
    function_call: null,
    tool_calls: [
      { id: "c", type: "function", function: { name: "bump", arguments: "{}" } }
    ]
  };

  it("steps with an act env_id, and is refused a step with observe and a close with act", async () => {
    const p = await prepare({ ...(REACHES.status as Reach), scope: undefined });
    const envId = (scope: Scope) =>
      mint(p.s, scope).then((token) => `${p.s.session_id}.${token}`);
    const before = await footprint(p);
    const watching = await aviary("step", {
      env_id: await envId("observe"),
      action: bump
    });
    expect(watching.status).toBe(403);
    expect((await json<{ error: unknown }>(watching)).error).toMatchObject({
      code: "forbidden",
      details: { scope: "act", granted: "observe" }
    });
    expect(await footprint(p)).toEqual(before);
    const acting = await envId("act");
    expect(
      (await aviary("step", { env_id: acting, action: bump })).status
    ).toBe(200);
    const close = await aviary("close", { env_id: acting });
    expect(close.status).toBe(403);
    expect(ok(await p.stub.op("status", {}, SERVER_GRANT))).toMatchObject({
      steps: 1
    });
  });
});

describe("the guide's scope table", () => {
  it("names each client operation in the row of the scope it declares", async () => {
    const { default: page } = await import("../../docs/10-auth.md?raw");
    const rows = new Map(
      [...page.matchAll(/^\| `(\w+)` \| [^|]+ \| (.+) \|$/gm)].map((m) => [
        m[1]!,
        [...m[2]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!)
      ])
    );
    expect([...rows.keys()]).toEqual([...SCOPES]);
    for (const name of CLIENT)
      expect(rows.get(OPERATIONS[name].scope), name).toContain(name);
  });
});
