// Every operation a client may run, over every transport that carries it:
// HTTP (its route), the session socket (the `op` frame) and MCP (where MCP
// has a method for it), each compared with the object's own `op` on a
// session prepared the same way. The reaches are keyed by the table's
// names, so a new operation must say how each transport reaches it (or
// why one does not) before this file typechecks.

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { toolCalls } from "../../src/messages/build";
import { type Scope, SERVER_GRANT } from "../../src/protocol/scopes";
import { OPERATIONS, type OperationName } from "../../src/session/operations";
import {
  createSession,
  json,
  send,
  type TestSession,
  withScope
} from "./helpers";
import { api, events, ok, type SessionApi } from "./session-helpers";
import { type Frame, openSocket } from "./ws-helpers";

interface Prepared {
  s: TestSession;
  stub: SessionApi;
  runId?: string;
}

type Input = Record<string, unknown>;

interface Reach {
  environment: "lab" | "forest";
  /** The scope its transports' credential holds (control, the session's first token's, by default). */
  scope?: Scope;
  /** A step taken before the operation (a tool that keeps something). */
  before?: { action: ReturnType<typeof toolCalls> };
  /** A run going before the operation (the run reads need one). */
  withRun?: true;
  input: (p: Prepared) => Input;
  /** The route's request, or why HTTP has none. */
  http:
    | {
        send: (p: Prepared) => Promise<Response>;
        /** What the route answers for the operation's value (the value itself by default). */
        answer?: (value: unknown) => unknown;
      }
    | string;
  /** An MCP request and the part of its answer that carries the value, or why MCP has none. */
  mcp:
    | {
        method: string;
        params: (p: Prepared) => object;
        answer: (result: McpResult) => unknown;
        value: (value: unknown) => unknown;
      }
    | string;
  /**
   * `answer`: the same value everywhere; `effects`: the same log and state
   * afterwards (a stream's route); `shape`: a value of the output schema
   * (a run's answer depends on how far it got).
   */
  compare: "answer" | "effects" | "shape";
}

type McpResult = {
  content?: { text: string }[];
  tools?: { name: string }[];
  resources?: { name: string }[];
  contents?: { text: string }[];
};

const KEY = "/environment/t/k";
const step = toolCalls({ name: "note", arguments: { text: "a" } });

const get = (path: string) => (p: Prepared) => p.s.call(path);
const post =
  (path: string, body: (p: Prepared) => unknown, method = "POST") =>
  (p: Prepared) =>
    p.s.call(path, send(method, body(p)));

const INTERNAL =
  "the server's own protocols run it (creation, forks, a token's signing)";

const REACHES: Record<OperationName, Reach | typeof INTERNAL> = {
  create: INTERNAL,
  expectUse: INTERNAL,
  forkBegin: INTERNAL,
  forkChunk: INTERNAL,
  forkEnd: INTERNAL,
  importBegin: INTERNAL,
  importChunk: INTERNAL,
  importEnd: INTERNAL,
  importAbort: INTERNAL,
  status: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("") },
    mcp: "MCP has no status method; its server reads the status for itself",
    compare: "answer"
  },
  destroy: {
    environment: "lab",
    input: () => ({}),
    http: {
      send: (p) => p.s.call("", { method: "DELETE" }),
      answer: () => ({ deleted: true })
    },
    mcp: "an MCP client does not end its Roost session (405)",
    compare: "answer"
  },
  events: {
    environment: "lab",
    input: () => ({ after: 0, limit: 10 }),
    http: { send: get("/events?after=0&limit=10") },
    mcp: "MCP has no event log",
    compare: "answer"
  },
  reset: {
    environment: "lab",
    input: () => ({}),
    http: { send: post("/reset", () => ({})) },
    mcp: "the environment's MCP server resets at initialize",
    compare: "answer"
  },
  step: {
    environment: "lab",
    input: () => ({ action: step }),
    http: { send: post("/step", () => ({ action: step })) },
    mcp: "MCP calls one tool at a time (tools/call is `call`)",
    compare: "answer"
  },
  call: {
    environment: "lab",
    input: () => ({ tool: "bump", arguments: {} }),
    http: { send: post("/tools/bump", () => ({ arguments: {} })) },
    mcp: {
      method: "tools/call",
      params: () => ({ name: "bump", arguments: {} }),
      answer: (r) => r.content?.[0]?.text,
      value: (v) => (v as { content: string }).content
    },
    compare: "answer"
  },
  tools: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/tools") },
    mcp: {
      method: "tools/list",
      params: () => ({}),
      answer: (r) => r.tools?.map((t) => t.name),
      value: (v) =>
        (v as { tools: { function: { name: string } }[] }).tools.map(
          (t) => t.function.name
        )
    },
    compare: "answer"
  },
  readStore: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k" }),
    http: { send: get("/environment?tool=t&name=k") },
    mcp: {
      method: "resources/read",
      params: () => ({ uri: "roost://environment/t/k" }),
      answer: (r) =>
        (JSON.parse(r.contents?.[0]?.text ?? "{}") as { entries: unknown })
          .entries,
      value: (v) => (v as { entries: unknown }).entries
    },
    compare: "answer"
  },
  storeKeys: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/environment/keys") },
    mcp: {
      method: "resources/list",
      params: () => ({}),
      answer: (r) => r.resources?.map((x) => x.name),
      value: (v) =>
        (v as { keys: { tool: string; name: string }[] }).keys.map(
          (k) => `${k.tool}/${k.name}`
        )
    },
    compare: "answer"
  },
  addEntry: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k", objects: [{ b: 2 }] }),
    http: { send: post(KEY, () => ({ objects: [{ b: 2 }] })) },
    mcp: "MCP's resources are read-only",
    compare: "answer"
  },
  replaceEntry: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k", index: 0, objects: [{ a: 9 }] }),
    http: { send: post(`${KEY}/0`, () => ({ objects: [{ a: 9 }] }), "PUT") },
    mcp: "MCP's resources are read-only",
    compare: "answer"
  },
  removeEntry: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k" }),
    http: { send: (p) => p.s.call(KEY, { method: "DELETE" }) },
    mcp: "MCP's resources are read-only",
    compare: "answer"
  },
  issueToken: INTERNAL,
  revokeTokens: {
    environment: "lab",
    input: () => ({ scope: "observe" }),
    http: {
      send: post("/tokens/revoke", () => ({ scope: "observe" })),
      answer: () => ({ scope: "observe" })
    },
    mcp: "revoking is the session owner's, not an MCP client's",
    compare: "effects"
  },
  readHidden: {
    environment: "lab",
    scope: "grade",
    before: { action: toolCalls({ name: "secret", arguments: {} }) },
    input: () => ({}),
    http: { send: get("/hidden") },
    mcp: "the hidden store is never an MCP resource",
    compare: "answer"
  },
  readState: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/state") },
    mcp: "the state is not an MCP resource",
    compare: "answer"
  },
  patchState: {
    environment: "lab",
    input: () => ({ key: "count", value: 5 }),
    http: { send: post("/state", () => ({ key: "count", value: 5 }), "PATCH") },
    mcp: "the state is not an MCP resource",
    compare: "answer"
  },
  messages: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/messages") },
    mcp: "the transcript is not an MCP resource",
    compare: "answer"
  },
  frame: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/frame") },
    mcp: "the frame is not an MCP resource",
    compare: "answer"
  },
  startRun: {
    environment: "forest",
    input: () => ({ prompt: "multi" }),
    http: { send: post("/runs", () => ({ prompt: "multi" })) },
    mcp: "MCP clients run their own loop",
    compare: "shape"
  },
  startChat: {
    environment: "forest",
    input: () => ({ prompt: "multi", chat_id: "c1" }),
    http: {
      // useChat's body: the prompt is its last user message's text.
      send: post("/chat", () => ({
        id: "c1",
        messages: [
          { id: "u1", role: "user", parts: [{ type: "text", text: "multi" }] }
        ],
        trigger: "submit-message"
      }))
    },
    mcp: "MCP clients run their own loop",
    compare: "effects"
  },
  readRun: {
    environment: "forest",
    withRun: true,
    input: (p) => ({ run_id: p.runId, wait: 30 }),
    http: { send: (p) => p.s.call(`/runs/${p.runId}?wait=30`) },
    mcp: "MCP clients run their own loop",
    compare: "answer"
  },
  cancelRun: {
    environment: "forest",
    withRun: true,
    input: (p) => ({ run_id: p.runId }),
    http: {
      send: (p) => p.s.call(`/runs/${p.runId}/cancel`, send("POST", {}))
    },
    mcp: "MCP clients run their own loop",
    compare: "shape"
  }
};

const prepare = async (reach: Reach): Promise<Prepared> => {
  const created = await createSession({ environment: reach.environment });
  const s =
    reach.scope === undefined ? created : await withScope(created, reach.scope);
  const stub = api(env.SESSIONS.get(env.SESSIONS.idFromString(s.session_id)));
  ok(await stub.op("reset", {}, SERVER_GRANT));
  if (reach.environment === "lab")
    ok(
      await stub.op(
        "addEntry",
        { tool: "t", name: "k", objects: [{ a: 1 }] },
        SERVER_GRANT
      )
    );
  if (reach.before) ok(await stub.op("step", reach.before, SERVER_GRANT));
  if (!reach.withRun) return { s, stub };
  const { run_id } = ok(
    await stub.op("startRun", { prompt: "multi" }, SERVER_GRANT)
  );
  return { s, stub, runId: run_id };
};

/** What differs between two sessions prepared alike: ids, clocks, run ids. */
const VOLATILE = new Set([
  "session_id",
  "created_at",
  "last_used_at",
  "at",
  "run_id",
  "started_at",
  "updated_at",
  "finished_at",
  "deleted"
]);

const stable = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(stable)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => !VOLATILE.has(k))
            .map(([k, v]) => [k, stable(v)])
        )
      : value;

/**
 * The log's event types and the state, to compare what an operation left,
 * once a run it started has ended (a chat's stream ends with its run).
 */
const effects = async (p: Prepared, value?: unknown) => {
  const runId = (value as { run_id?: unknown } | undefined)?.run_id;
  if (typeof runId === "string")
    ok(await p.stub.op("readRun", { run_id: runId, wait: 30 }, SERVER_GRANT));
  const status = await p.stub.op("status", {}, SERVER_GRANT);
  if (!status.ok) return { error: status.error.code };
  return {
    events: (await events(p.stub)).map((e) => e.type),
    state: ok(await p.stub.op("readState", {}, SERVER_GRANT))
  };
};

const viaSocket = async (p: Prepared, name: string, input: Input) => {
  const sock = await openSocket(p.s.session_id, p.s.token);
  await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
  sock.send({ type: "op", id: "r1", op: name, input });
  const frames = await sock.until((f) => f.some((x) => x.id === "r1"));
  sock.ws.close();
  const reply = frames.find((f) => f.id === "r1") as Frame & {
    ok?: boolean;
    value?: unknown;
    error?: unknown;
  };
  expect(reply, JSON.stringify(reply)).toMatchObject({
    type: "reply",
    ok: true
  });
  return reply.value;
};

const viaMcp = async (p: Prepared, method: string, params: object) => {
  const res = await p.s.call(
    "/mcp",
    send("POST", { jsonrpc: "2.0", id: 1, method, params })
  );
  expect(res.status).toBe(200);
  const body = await json<{ result?: McpResult; error?: unknown }>(res);
  expect(body.error).toBeUndefined();
  return body.result!;
};

const NAMES = Object.keys(OPERATIONS) as OperationName[];
const CLIENT = NAMES.filter((n) => REACHES[n] !== INTERNAL);

describe("every operation over every transport", () => {
  it("says how each transport reaches each operation the table opens to clients", () => {
    for (const name of NAMES)
      expect(REACHES[name] === INTERNAL, name).toBe(
        OPERATIONS[name].internal === true
      );
  });

  it("refuses an internal operation on the socket", async () => {
    const p = await prepare(REACHES.status as Reach);
    const sock = await openSocket(p.s.session_id, p.s.token);
    await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
    sock.send({ type: "op", id: "r1", op: "importEnd", input: {} });
    sock.send({ type: "op", id: "r2", op: "nope", input: {} });
    const frames = await sock.until(
      (f) => f.some((x) => x.id === "r1") && f.some((x) => x.id === "r2")
    );
    sock.ws.close();
    for (const id of ["r1", "r2"])
      expect(frames.find((f) => f.id === id)).toMatchObject({
        ok: false,
        error: { code: "invalid_request" }
      });
  });

  it.each(CLIENT)(
    "%s: the same answer and effects on each transport",
    async (name) => {
      const reach = REACHES[name] as Reach;
      const op = OPERATIONS[name];
      const reference = await prepare(reach);
      const value = ok(
        await reference.stub.op(
          name,
          reach.input(reference) as never,
          reach.scope === undefined
            ? SERVER_GRANT
            : { scope: reach.scope, issuedAt: 0 }
        )
      );
      const expected = await effects(reference, value);
      const same = async (p: Prepared, got: unknown, want: unknown) => {
        if (reach.compare === "answer")
          expect(stable(got)).toEqual(stable(want));
        if (reach.compare === "shape" && op.output)
          expect(() => op.output!().parse(got)).not.toThrow();
        if (reach.compare === "effects")
          expect(stable(await effects(p))).toEqual(stable(expected));
      };
      const overSocket = await prepare(reach);
      await same(
        overSocket,
        await viaSocket(overSocket, name, reach.input(overSocket)),
        value
      );
      if (typeof reach.http !== "string") {
        const overHttp = await prepare(reach);
        const res = await reach.http.send(overHttp);
        expect(res.status, await res.clone().text()).toBeLessThan(300);
        const body =
          reach.compare === "effects" ? await res.text() : await res.json();
        await same(
          overHttp,
          body,
          reach.http.answer ? reach.http.answer(value) : value
        );
      }
      if (typeof reach.mcp !== "string") {
        const overMcp = await prepare(reach);
        const result = await viaMcp(
          overMcp,
          reach.mcp.method,
          reach.mcp.params(overMcp)
        );
        expect(reach.mcp.answer(result)).toEqual(reach.mcp.value(value));
      }
    }
  );
});
