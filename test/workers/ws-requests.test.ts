// What a client sends on the session WebSocket: step, reset and call
// frames answered like the HTTP routes, Idempotency-Keys shared with HTTP,
// bad frames and credentials refused in band, the hidden store never in a
// frame; and /events answering 410 once what it asks for was trimmed.

import { describe, expect, it } from "vitest";
import { HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  action,
  call,
  createResetSession,
  json,
  send,
  step,
  withEnv
} from "./helpers";
import { inside, stubOf } from "./session-helpers";
import { countType, type Frame, hasType, openSocket } from "./ws-helpers";

describe("session WebSocket: requests", () => {
  it("answers step, reset and call frames with replies like the HTTP routes", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    sock.send({ type: "step", id: "r1", action: action("bump").action });
    sock.send({
      type: "call",
      id: "r2",
      tool: "note",
      arguments: { text: "direct" }
    });
    sock.send({
      type: "step",
      id: "r3",
      action: { tool_calls: [] },
      idempotency_key: "k"
    });
    const frames = await sock.until(
      (f) => f.filter((x) => x.type === "reply").length >= 3
    );
    const replies = Object.fromEntries(
      frames.filter((f) => f.type === "reply").map((f) => [f.id, f])
    );
    expect(replies.r1).toMatchObject({
      ok: true,
      value: { reward: 0, done: false, observations: [{ content: "count=1" }] }
    });
    expect(replies.r2).toMatchObject({
      ok: true,
      value: { content: "noted direct", is_error: false }
    });
    expect(replies.r3).toMatchObject({ ok: true, value: { reward: 0 } });
    sock.send({ type: "reset", id: "r4", task: { label: 7 } });
    const bad = await sock.until((f) => f.some((x) => x.id === "r4"));
    expect(bad.find((x) => x.id === "r4")).toMatchObject({
      ok: false,
      error: { code: "invalid_request" }
    });
    sock.ws.close();
  });

  it("shares Idempotency-Keys with HTTP: a step sent over the socket is not run again over HTTP", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    const bump = action("bump", { key: "b" }).action;
    sock.send({ type: "step", id: "w1", action: bump, idempotency_key: "k1" });
    const [reply] = (
      await sock.until((f) => f.some((x) => x.id === "w1"))
    ).filter((f) => f.id === "w1");
    expect(reply).toMatchObject({ ok: true });
    // The same request with other spacing and key order: the stored reply.
    const raw = `{ "action" : ${JSON.stringify({
      tool_calls: bump.tool_calls.map((c) => ({
        function: { arguments: c.function.arguments, name: c.function.name },
        type: c.type,
        id: c.id
      }))
    })} }`;
    const retried = await s.call("/step", {
      method: "POST",
      body: raw,
      headers: { "Idempotency-Key": "k1" }
    });
    expect(retried.status).toBe(200);
    expect(await json(retried)).toEqual(reply?.value);
    expect((await json<{ steps: number }>(await s.call(""))).steps).toBe(1);
    // Another request under the key is refused on either transport.
    const other = await s.call("/step", {
      ...send("POST", action("bump")),
      headers: { "Idempotency-Key": "k1" }
    });
    expect(other.status).toBe(422);
    sock.send({
      type: "step",
      id: "w2",
      action: action("bump").action,
      idempotency_key: "k1"
    });
    const refused = (
      await sock.until((f) => f.some((x) => x.id === "w2"))
    ).find((f) => f.id === "w2");
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "idempotency_mismatch" }
    });
    sock.ws.close();
  });

  it("keeps the socket open after bad frames, and answers ping with pong", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    sock.send("not json");
    sock.send({ type: "nope", id: "x1" });
    sock.send({ type: "step", id: "x2" });
    sock.send("x".repeat(1024 * 1024 + 1));
    const errors = (await sock.until(countType("protocol.error", 4))).filter(
      (f) => f.type === "protocol.error"
    );
    // Sorted: under load the pool's socket has delivered the 1 MB frame's
    // error before the one sent just ahead of it; each frame gets its own
    // error either way, and the one with an id carries it.
    expect(
      errors.map((e) => (e.error as { code: string }).code).sort()
    ).toEqual([
      "invalid_json",
      "invalid_request",
      "invalid_request",
      "payload_too_large"
    ]);
    expect(errors.find((e) => e.id === "x2")).toMatchObject({
      error: { code: "invalid_request" }
    });
    sock.send({ type: "ping" });
    await sock.until(hasType("pong"));
    sock.ws.close();
  });

  it("refuses bad credentials in band: 4401 without a token, 4403 with another session's", async () => {
    const a = await createResetSession({ environment: "lab" });
    const b = await createResetSession({ environment: "lab" });
    const none = await openSocket(a.session_id, undefined);
    expect(none.protocol).toBe("roost.v1");
    expect((await none.closed).code).toBe(4401);
    const wrong = await openSocket(a.session_id, b.token);
    expect((await wrong.closed).code).toBe(4403);
    const garbage = await openSocket(a.session_id, "v1.dev.AAAA");
    expect((await garbage.closed).code).toBe(4403);
    const byQuery = await call(
      `/v1/sessions/${a.session_id}/ws?token=${a.token}`
    );
    expect(byQuery.status).toBe(426);
    // API keys rotate: the new one opens the socket, the removed one is 4403.
    const rotated = withEnv({ ROOST_API_KEYS: "key-new" });
    const old = await openSocket(a.session_id, "key-old", "", rotated);
    expect((await old.closed).code).toBe(4403);
    const current = await openSocket(a.session_id, "key-new", "", rotated);
    await current.until(hasType("session.snapshot"));
    current.ws.close();
  });

  it("never puts the hidden store in a frame", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    await step(s, "secret");
    sock.send({ type: "call", id: "c", tool: "secret", arguments: {} });
    const frames = await sock.until((f) => f.some((x) => x.id === "c"));
    const again = await openSocket(s.session_id, s.token, "?after=0");
    await again.until(hasType("step"));
    expect(JSON.stringify([frames, again.frames])).not.toContain(
      HIDDEN_SENTINEL
    );
    sock.ws.close();
    again.ws.close();
  });

  it("serves /events with 410 once the asked-for events were trimmed", async () => {
    const s = await createResetSession({ environment: "lab" });
    await step(s, "bump");
    const all = (await (await s.call("/events?after=0")).json()) as {
      events: Frame[];
      next_after: number;
    };
    expect(all.events.length).toBeGreaterThan(3);
    expect(all.next_after).toBe(all.events.at(-1)!.seq);
    const stub = stubOf(s.session_id);
    // Retention drops whole rows; the first row left starts at `oldest`.
    const oldest = await inside(stub, (_i, state) => {
      const sql = state.storage.sql;
      sql.exec("DELETE FROM events WHERE seq = (SELECT min(seq) FROM events)");
      return sql
        .exec<{ s: number }>(
          "SELECT coalesce(first, seq) AS s FROM events ORDER BY seq LIMIT 1"
        )
        .one().s;
    });
    expect(oldest).toBeGreaterThan(2);
    const gone = await s.call("/events?after=1");
    expect(gone.status).toBe(410);
    expect(
      ((await gone.json()) as { error: { code: string } }).error.code
    ).toBe("gone");
    expect((await s.call(`/events?after=${oldest - 2}`)).status).toBe(410);
    const resumed = (await (
      await s.call(`/events?after=${oldest - 1}`)
    ).json()) as { events: Frame[] };
    expect(resumed.events[0]!.seq).toBe(oldest);
    const sock = await openSocket(s.session_id, s.token, "?after=1");
    const frames = await sock.until(hasType("session.snapshot"));
    expect(frames[0]).toMatchObject({
      type: "resume.expired",
      after: 1,
      oldest_seq: oldest
    });
    // The snapshot says how far back the log reaches, so a client reading
    // history asks from there and is never refused.
    expect(frames.find((f) => f.type === "session.snapshot")).toMatchObject({
      oldest_seq: oldest,
      last_seq: all.next_after
    });
    sock.ws.close();
  });
});
