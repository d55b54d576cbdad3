// Leakage (issue 62): for each agent of a multi-agent session, nothing
// private to the other reaches what that agent's credential can read,
// over HTTP (every GET route the API documents), the session socket
// (live and replayed) and MCP; while what is its own does reach it.
import { describe, expect, it } from "vitest";
import { CARDS } from "../fixtures/secrets";
import {
  action,
  call,
  createResetSession,
  json,
  send,
  type TestSession
} from "./helpers";
import { rpc } from "./mcp-helpers";
import { openSocket } from "./ws-helpers";

type Agent = keyof typeof CARDS;
const OTHER: Record<Agent, Agent> = { a: "b", b: "a" };

const tokenFor = async (s: TestSession, agent: Agent, scope = "act") => {
  const res = await s.call("/tokens", send("POST", { scope, agent }));
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ token: string }>(res)).token;
};

const as = (s: TestSession, token: string, path: string, init?: RequestInit) =>
  call(`/v1/sessions/${s.session_id}${path}`, {
    ...init,
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${token}`
    }
  });

// What a route's other parameters are filled with: the key the fixture's
// tool stores under, and a placeholder for the rest.
const FILL: Record<string, string> = { tool: "peek", name: "hand", index: "0" };

/** Every GET route of a session the OpenAPI document names, parameters filled. */
const sessionReads = async (): Promise<string[]> => {
  const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(
    await call("/openapi.json")
  );
  const prefix = "/v1/sessions/{id}";
  return Object.entries(doc.paths)
    .filter(([path, ops]) => path.startsWith(prefix) && "get" in ops)
    .map(([path]) =>
      path
        .slice(prefix.length)
        .replace(/\{(\w+)\}/g, (_, p: string) => FILL[p] ?? "x")
    );
};

/** A session where each agent peeked at its card twice. */
const played = async () => {
  const s = await createResetSession({ environment: "secrets" });
  for (let i = 0; i < 2; i++) {
    for (const agent of ["a", "b"] as const) {
      const res = await s.call(
        "/step",
        send("POST", { ...action("peek"), agent })
      );
      expect(res.status, await res.clone().text()).toBe(200);
    }
  }
  return s;
};

describe("an agent's credential reads its agent's view", () => {
  it("over every documented GET route: its own card where it is shown, never the other's", async () => {
    const s = await played();
    const reads = await sessionReads();
    expect(reads).toEqual(
      expect.arrayContaining(["", "/messages", "/events", "/state", "/tools"])
    );
    // The session's own credential sees both cards: the check below can fail.
    const whole = await (await s.call("/events?limit=1000")).text();
    expect(whole).toContain(CARDS.a);
    expect(whole).toContain(CARDS.b);
    for (const agent of ["a", "b"] as const) {
      for (const scope of ["act", "observe"]) {
        const token = await tokenFor(s, agent, scope);
        for (const path of reads) {
          const res = await as(s, token, path);
          const text = await res.text();
          expect(text, `${scope}~${agent} GET ${path}`).not.toContain(
            CARDS[OTHER[agent]]
          );
          expect(res.status, `${scope}~${agent} GET ${path}`).toBeLessThan(500);
        }
        for (const path of ["/messages?limit=100", "/events?limit=1000"]) {
          const text = await (await as(s, token, path)).text();
          expect(text, `${agent} GET ${path}`).toContain(CARDS[agent]);
        }
        // Its own tools' events, tagged as its own.
        const { events } = await json<{ events: Record<string, unknown>[] }>(
          await as(s, token, "/events?limit=1000")
        );
        const own = events.filter((e) => e.type === "result");
        expect(own.length).toBe(2);
        expect(own.every((e) => e.agent === agent)).toBe(true);
        // The shared record: every step, both agents'.
        expect(
          events.filter((e) => e.type === "step").map((e) => e.agent)
        ).toEqual(["a", "b", "a", "b"]);
        expect((await as(s, token, "/environment")).status).toBe(403);
      }
    }
  });

  it("over the session socket, live and replayed", async () => {
    const s = await createResetSession({ environment: "secrets" });
    const tokens = { a: await tokenFor(s, "a"), b: await tokenFor(s, "b") };
    const live = {
      a: await openSocket(s.session_id, tokens.a),
      b: await openSocket(s.session_id, tokens.b)
    };
    for (const agent of ["a", "b"] as const) {
      await live[agent].until((f) =>
        f.some((x) => x.type === "session.snapshot")
      );
      const snapshot = live[agent].frames.find(
        (f) => f.type === "session.snapshot"
      );
      expect(snapshot?.keys).toEqual([]);
    }
    for (const agent of ["a", "b", "a", "b"] as const) {
      const id = `${agent}-${Math.random()}`;
      live[agent].send({ type: "step", id, action: action("peek").action });
      const frames = await live[agent].until((f) => f.some((x) => x.id === id));
      expect(frames.find((f) => f.id === id)).toMatchObject({ ok: true });
    }
    for (const agent of ["a", "b"] as const) {
      const frames = await live[agent].until(
        (f) => f.filter((x) => x.type === "step").length === 4
      );
      const replay = await openSocket(s.session_id, tokens[agent], "?after=0");
      const replayed = await replay.until(
        (f) => f.filter((x) => x.type === "step").length === 4
      );
      for (const seen of [frames, replayed]) {
        const text = JSON.stringify(seen);
        expect(text).toContain(CARDS[agent]);
        expect(text).not.toContain(CARDS[OTHER[agent]]);
        expect(
          seen
            .filter((f) => f.type === "tool.started")
            .every((f) => f.agent === agent)
        ).toBe(true);
      }
      replay.ws.close();
      live[agent].ws.close();
    }
  });

  it("over MCP: what it lists and reads holds nothing of the other's", async () => {
    const s = await played();
    for (const agent of ["a", "b"] as const) {
      const token = await tokenFor(s, agent);
      const post = async (body: unknown) =>
        (
          await as(s, token, "/mcp", {
            method: "POST",
            body: JSON.stringify(body)
          })
        ).text();
      const answers = [
        await post(rpc("tools/list")),
        await post(rpc("resources/list")),
        await post(rpc("tools/call", { name: "peek", arguments: {} }))
      ];
      for (const text of answers)
        expect(text).not.toContain(CARDS[OTHER[agent]]);
    }
  });
});
