// One operation, three transports: HTTP, the session WebSocket and MCP
// reach a session through the same operation table, so the same request
// has the same effect, the same idempotent answer and the same refusal
// whichever way it came.
import { describe, expect, it } from "vitest";
import {
  action,
  createSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";
import { type Frame, openSocket } from "./ws-helpers";

const ready = async (): Promise<TestSession> => {
  const s = await createSession({ environment: "lab" });
  expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
  return s;
};

/** Sends one request frame and answers its reply. */
const request = async (s: TestSession, frame: Record<string, unknown>) => {
  const sock = await openSocket(s.session_id, s.token);
  await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
  const id = `r${crypto.randomUUID()}`;
  sock.send({ ...frame, id });
  const frames = await sock.until((f) => f.some((x) => x.id === id));
  sock.ws.close();
  return frames.find((f) => f.id === id) as Frame & {
    ok: boolean;
    value?: unknown;
    error?: unknown;
  };
};

const mcpCall = async (s: TestSession, tool: string, args: object) => {
  const res = await s.call(
    "/mcp",
    send("POST", {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: tool, arguments: args }
    })
  );
  expect(res.status).toBe(200);
  return json<{ result?: { content: { text: string }[]; isError?: boolean } }>(
    res
  );
};

/** What a session shows afterwards: state, status and its events' types. */
const effects = async (s: TestSession) => {
  const state = await json(await s.call("/state"));
  const status = await json<Record<string, unknown>>(await s.call(""));
  const log = await json<{ events: Frame[] }>(await s.call("/events?after=0"));
  return {
    state,
    steps: status.steps,
    events: log.events.map((e) => e.type)
  };
};

describe("one operation over every transport", () => {
  it("a direct call has the same answer and the same effects over HTTP, the socket and MCP", async () => {
    const [h, w, m] = [await ready(), await ready(), await ready()];
    const viaHttp = await json<{ content: unknown; is_error: boolean }>(
      await h.call("/tools/bump", send("POST", { arguments: {} }))
    );
    const viaSocket = await request(w, {
      type: "call",
      tool: "bump",
      arguments: {}
    });
    const viaMcp = await mcpCall(m, "bump", {});
    expect(viaSocket).toMatchObject({ ok: true, value: viaHttp });
    expect(viaMcp.result?.isError).not.toBe(true);
    expect(viaMcp.result?.content[0]?.text).toBe(viaHttp.content);
    const [eh, ew, em] = [await effects(h), await effects(w), await effects(m)];
    expect(eh.state).toEqual({ state: expect.objectContaining({ count: 1 }) });
    expect(ew).toEqual(eh);
    expect(em).toEqual(eh);
  });

  it("an Idempotency-Key binds across transports: a retry over the other one is answered, a different body refused", async () => {
    const s = await ready();
    const first = await request(s, {
      type: "step",
      idempotency_key: "cross-1",
      action: action("bump").action
    });
    expect(first.ok).toBe(true);
    const retry = await s.call("/step", {
      ...send("POST", action("bump")),
      headers: {
        "Content-Type": "application/json",
        "Idempotency-Key": "cross-1"
      }
    });
    expect(retry.status).toBe(200);
    expect(await json(retry)).toEqual(first.value);
    expect((await effects(s)).steps).toBe(1);
    const reused = await s.call("/step", {
      ...send("POST", action("note", { text: "other" })),
      headers: {
        "Content-Type": "application/json",
        "Idempotency-Key": "cross-1"
      }
    });
    const socketReuse = await request(s, {
      type: "step",
      idempotency_key: "cross-1",
      action: action("note", { text: "other" }).action
    });
    expect(reused.status).toBe(422);
    expect(socketReuse).toMatchObject({
      ok: false,
      error: await errorOf(reused)
    });
    expect((await effects(s)).steps).toBe(1);
  });

  it("a limit is enforced once: the same refusal over HTTP and the socket, and nothing changes", async () => {
    const s = await ready();
    const before = await effects(s);
    const calls = Array.from({ length: 65 }, (_, i) => ({
      id: `c${i}`,
      type: "function",
      function: { name: "bump", arguments: {} }
    }));
    const overHttp = await s.call(
      "/step",
      send("POST", { action: { tool_calls: calls } })
    );
    expect(overHttp.status).toBe(413);
    const httpError = await errorOf(overHttp);
    expect(httpError).toMatchObject({
      code: "payload_too_large",
      details: { limit: "toolCallsPerAction" }
    });
    const overSocket = await request(s, {
      type: "step",
      action: { tool_calls: calls }
    });
    expect(overSocket).toMatchObject({ ok: false, error: httpError });
    expect(await effects(s)).toEqual(before);
  });
});
