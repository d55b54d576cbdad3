// Every operation a client may run, over every transport that carries it:
// HTTP (its route), the session socket (the `op` frame) and MCP (where MCP
// has a method for it), each compared with the object's own `op` on a
// session prepared the same way (op-reaches.case.ts says how each
// transport reaches each operation, or why it does not).
import { afterAll, describe, expect, it } from "vitest";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { OperationName } from "../../src/session/operations";
import { json, send } from "./helpers";
import {
  INTERNAL,
  type Input,
  type McpResult,
  type Prepared,
  prepare,
  REACHES,
  type Reach,
  releaseHeldTasks
} from "./op-reaches.case";
import { events, ok } from "./session-helpers";
import { OPERATIONS } from "./tables";
import { type Frame, openSocket } from "./ws-helpers";

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

// Tasks held running for a cancel finish once the file is done.
afterAll(releaseHeldTasks);

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
        // A run the answer names is waited for (the socket's reply names
        // it; the chat's stream ends with it), so its events are all in.
        if (reach.compare === "effects")
          expect(stable(await effects(p, got))).toEqual(stable(expected));
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
