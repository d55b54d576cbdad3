import { describe, expect, it } from "vitest";
import {
  call,
  createResetSession,
  createSession,
  errorOf,
  json,
  send
} from "./helpers";
import { hasType, openSocket } from "./ws-helpers";

// Haystack's State(schema, data): a session and a reset may give the state
// an episode starts from. Each value is checked as a write is; a bad one is
// a 400 that creates or changes nothing.
/** The status without last_used_at, which every request moves, reads included. */
const statusOf = async (s: { call: typeof call }) => {
  const { last_used_at: _, ...rest } = await json<Record<string, unknown>>(
    await s.call("")
  );
  return rest;
};

const stateOf = async (s: { call: typeof call }) =>
  (await json<{ state: Record<string, unknown> }>(await s.call("/state")))
    .state;

describe("initial state", () => {
  it("seeds every reset from the state given at creation, unless the reset gives its own", async () => {
    const s = await createResetSession({
      environment: "lab",
      state: { count: 5, notes: ["seeded"] }
    });
    expect(await stateOf(s)).toMatchObject({ count: 5, notes: ["seeded"] });
    // Replaced, not merged: a list starts as given, not appended to its default.
    await s.call(
      "/state",
      send("PATCH", { key: "count", value: 9, handler: "replace" })
    );
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    expect(await stateOf(s)).toMatchObject({ count: 5, notes: ["seeded"] });
    // A reset's own state stands alone: keys it leaves out keep their defaults.
    const own = await s.call("/reset", send("POST", { state: { count: 7 } }));
    expect(own.status).toBe(200);
    expect(await stateOf(s)).toMatchObject({ count: 7, notes: [] });
  });

  it("refuses a bad state at creation with the write's 400, creating nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ nope: 1 }, "unknown_state_key"],
      [{ count: "ten" }, "invalid_state_value"],
      [{ small: 500 }, "invalid_state_value"],
      [{ messages: [] }, "invalid_request"]
    ];
    for (const [state, code] of cases) {
      const res = await call(
        "/v1/sessions",
        send("POST", { environment: "lab", state })
      );
      expect(res.status, JSON.stringify(state)).toBe(400);
      const error = await errorOf(res);
      expect(error.code, JSON.stringify(state)).toBe(code);
      expect(JSON.stringify(error)).not.toContain("session_id");
    }
    // Not an object at all: the request schema's 400.
    const bare = await call(
      "/v1/sessions",
      send("POST", { environment: "lab", state: [1] })
    );
    expect(bare.status).toBe(400);
  });

  it("refuses a bad state at reset and leaves the session exactly as it was", async () => {
    const s = await createResetSession({ environment: "lab" });
    await s.call("/state", send("PATCH", { key: "notes", value: "kept" }));
    const before = {
      status: await statusOf(s),
      state: await stateOf(s),
      events: await json(await s.call("/events?after=0"))
    };
    const bad = await s.call(
      "/reset",
      send("POST", { state: { count: 1, small: 500 } })
    );
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).code).toBe("invalid_state_value");
    expect({
      status: await statusOf(s),
      state: await stateOf(s),
      events: await json(await s.call("/events?after=0"))
    }).toEqual(before);
  });

  it("shows, before the first reset, the state the session will start from, and says no episode has begun", async () => {
    const s = await createSession({
      environment: "lab",
      state: { count: 5, notes: ["seeded"] }
    });
    // Over HTTP: the creation's values over the defaults, flagged.
    const before = await json<Record<string, unknown>>(await s.call("/state"));
    expect(before).toEqual({
      state: { count: 5, notes: ["seeded"] },
      before_first_reset: true
    });
    // The socket's snapshot and its read show the same values.
    const sock = await openSocket(s.session_id, s.token);
    const [snapshot] = await sock.until(hasType("session.snapshot"));
    expect(snapshot).toMatchObject({
      status: { episode: 0 },
      state: { count: 5, notes: ["seeded"] }
    });
    sock.send({ type: "op", id: "r", op: "readState", input: {} });
    const frames = await sock.until((f) => f.some((x) => x.id === "r"));
    expect(frames.find((x) => x.id === "r")).toMatchObject({
      ok: true,
      value: {
        state: { count: 5, notes: ["seeded"] },
        before_first_reset: true
      }
    });
    sock.ws.close();
    // The first reset starts from exactly that, and the flag goes.
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    expect(await json(await s.call("/state"))).toEqual({
      state: { count: 5, notes: ["seeded"] }
    });
  });

  it("flags the defaults before the first reset of a session created without a state", async () => {
    const s = await createSession({ environment: "lab" });
    expect(await json(await s.call("/state"))).toEqual({
      state: { count: 0, notes: [] },
      before_first_reset: true
    });
  });

  it("takes a state in the socket's reset frame too", async () => {
    const s = await createSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    sock.send({ type: "reset", id: "r", state: { count: 3 } });
    const frames = await sock.until(hasType("reply"));
    expect(frames.find((f) => f.type === "reply")).toMatchObject({ ok: true });
    // The seeded value streams like any write.
    expect(frames).toContainEqual(
      expect.objectContaining({ type: "state.changed", key: "count", value: 3 })
    );
    expect(await stateOf(s)).toMatchObject({ count: 3 });
    sock.ws.close();
  });
});
