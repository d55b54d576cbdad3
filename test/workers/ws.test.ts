import { describe, expect, it } from "vitest";
import { EventFrameSchema, ServerFrameSchema } from "../../src/protocol";
import { gate, HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  action,
  call,
  createResetSession,
  json,
  send,
  step,
  withEnv
} from "./helpers";
import { abort, inside, stubOf } from "./session-helpers";
import {
  countType,
  eventFrames,
  type Frame,
  hasType,
  openSocket
} from "./ws-helpers";

const seqs = (frames: Frame[]) => eventFrames(frames).map((f) => f.seq);

describe("session WebSocket", () => {
  it("opens with a snapshot of keys and counts, echoing roost.v1", async () => {
    const s = await createResetSession({ environment: "lab" });
    await step(s, "note", { text: "a" });
    const sock = await openSocket(s.session_id, s.token);
    expect(sock.protocol).toBe("roost.v1");
    const [snap] = await sock.until((f) => f.length >= 1);
    expect(snap).toMatchObject({
      type: "session.snapshot",
      status: { episode: 1, steps: 1 },
      state: { notes: ["a"] },
      keys: [{ tool: "note", name: "notes", entries: 1, objects: 1 }]
    });
    expect(snap!.last_seq).toBeGreaterThan(0);
    expect(snap).not.toHaveProperty("seq");
    sock.ws.close();
  });

  it("streams each result before the step frame, the same to every socket", async () => {
    const s = await createResetSession({ environment: "lab" });
    const a = await openSocket(s.session_id, s.token);
    const b = await openSocket(s.session_id, s.token);
    await a.until(hasType("session.snapshot"));
    await b.until(hasType("session.snapshot"));
    await step(s, "triple");
    const fa = eventFrames(await a.until(hasType("step")));
    const fb = eventFrames(await b.until(hasType("step")));
    expect(fa).toEqual(fb);
    const types = fa.map((f) => f.type);
    const results = fa.filter((f) => f.type === "result");
    expect(results.map((r) => (r.objects as { i: number }[])[0]!.i)).toEqual([
      1, 2, 3
    ]);
    expect(types.lastIndexOf("result")).toBeLessThan(types.indexOf("step"));
    expect(types).toContain("tool.started");
    expect(types).toContain("tool.finished");
    expect(types).toContain("message");
    // Every frame has the documented shape.
    for (const f of a.frames) {
      const schema =
        typeof f.seq === "number" ? EventFrameSchema() : ServerFrameSchema();
      expect(schema.safeParse(f).success, JSON.stringify(f)).toBe(true);
    }
    // seq strictly increasing, no gaps.
    const list = seqs(fa) as number[];
    expect(list).toEqual(list.map((_, i) => list[0]! + i));
    a.ws.close();
    b.ws.close();
  });

  it("sends a step's events as one batch message; ?batch=0 gets one event per message", async () => {
    const s = await createResetSession({ environment: "lab" });
    const batched = await openSocket(s.session_id, s.token);
    const single = await openSocket(s.session_id, s.token, "?batch=0");
    await batched.until(hasType("session.snapshot"));
    await single.until(hasType("session.snapshot"));
    await step(s, "triple");
    const fb = eventFrames(await batched.until(hasType("step")));
    const fs = eventFrames(await single.until(hasType("step")));
    expect(fb).toEqual(fs);
    expect(fb.length).toBeGreaterThan(5);
    // Snapshot, then the whole step in one message.
    expect(batched.messages).toHaveLength(2);
    const batch = batched.messages[1]!;
    expect(batch.type).toBe("batch");
    expect(ServerFrameSchema().safeParse(batch).success).toBe(true);
    expect(batch).not.toHaveProperty("seq");
    // One message per event for the socket that asked for it.
    expect(single.messages).toHaveLength(1 + fs.length);
    expect(single.messages.every((m) => m.type !== "batch")).toBe(true);
    // A mutation with a single event sends it as itself, not as a batch of one.
    const put = await s.call(
      "/state",
      send("PATCH", { key: "count", value: 5, handler: "replace" })
    );
    expect(put.status).toBe(200);
    await batched.until(hasType("state.changed"));
    expect(batched.messages.at(-1)).toMatchObject({ type: "state.changed" });
    batched.ws.close();
    single.ws.close();
  });

  it("streams what is ready while a tool still runs, and the rest when the step ends", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    const id = `stream-${s.session_id}`;
    const stub = stubOf(s.session_id);
    const pending = s.call("/step", send("POST", action("wait", { gate: id })));
    await inside(stub, () => gate(id).started);
    const early = await sock.until(hasType("result"));
    expect(early.map((f) => f.type)).toContain("tool.started");
    expect(early.some((f) => f.type === "step")).toBe(false);
    await inside(stub, () => gate(id).open());
    expect((await pending).status).toBe(200);
    const all = eventFrames(await sock.until(hasType("step")));
    const list = seqs(all) as number[];
    expect(list).toEqual(list.map((_, i) => list[0]! + i));
    expect(all.filter((f) => f.type === "result")).toHaveLength(1);
    sock.ws.close();
  });

  it("answers a socket request after the events it caused, and resumes from inside a batch", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    sock.send({ type: "step", id: "r1", ...action("triple") });
    await sock.until(hasType("reply"));
    const at = (type: string) =>
      sock.messages.findIndex(
        (m) =>
          m.type === type ||
          (m.type === "batch" &&
            (m.events as Frame[]).some((e) => e.type === type))
      );
    expect(at("step")).toBeGreaterThan(0);
    expect(at("reply")).toBeGreaterThan(at("step"));
    const stepped = eventFrames(sock.frames);
    sock.ws.close();

    // Any event boundary is a resume point, also one inside a batch.
    const middle = stepped[2]!.seq!;
    const again = await openSocket(s.session_id, s.token, `?after=${middle}`);
    const replayed = eventFrames(await again.until(hasType("step")));
    expect(replayed).toEqual(stepped.slice(3));
    again.ws.close();
  });

  it("replays exactly the missed frames after a reconnect, by ?after and by resume", async () => {
    const s = await createResetSession({ environment: "lab" });
    const first = await openSocket(s.session_id, s.token);
    const [snap] = await first.until(hasType("session.snapshot"));
    await step(s, "bump");
    const live = eventFrames(await first.until(hasType("step")));
    const lastSeen = live.at(-1)!.seq!;
    first.ws.close();

    await step(s, "note", { text: "missed-1" });
    await step(s, "note", { text: "missed-2" });
    const missed = (await (
      await s.call(`/events?after=${lastSeen}`)
    ).json()) as { events: Frame[] };

    const again = await openSocket(s.session_id, s.token, `?after=${lastSeen}`);
    const replayed = eventFrames(await again.until(countType("step", 2)));
    expect(replayed).toEqual(missed.events);
    expect(replayed[0]!.seq).toBe(lastSeen + 1);
    expect(again.frames.some((f) => f.type === "session.snapshot")).toBe(false);

    // The same on an open socket, from the snapshot's seq.
    again.send({ type: "resume", after: snap!.last_seq as number });
    const all = await again.until(
      (f) =>
        eventFrames(f).length >= replayed.length + live.length + replayed.length
    );
    const resumed = eventFrames(all).slice(replayed.length);
    expect(seqs(resumed)).toEqual([...seqs(live), ...seqs(replayed)]);
    again.ws.close();
  });

  it("loses nothing across an abort: reconnect and resume see every committed step", async () => {
    const s = await createResetSession({ environment: "lab" });
    await step(s, "note", { text: "before" });
    const stub = stubOf(s.session_id);
    await abort(stub);
    await step(s, "note", { text: "after" });
    const sock = await openSocket(s.session_id, s.token, "?after=0");
    const frames = eventFrames(await sock.until(countType("step", 2)));
    const notes = frames
      .filter((f) => f.type === "result")
      .map((f) => (f.objects as { text: string }[])[0]!.text);
    expect(notes).toEqual(["before", "after"]);
    const list = seqs(frames) as number[];
    expect(list).toEqual(list.map((_, i) => i + 1));
    sock.ws.close();
  });

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
    sock.ws.close();
  });
});

describe("slow readers", () => {
  it("closes a socket that acks and falls too far behind with 4408; the others keep streaming", async () => {
    const s = await createResetSession({ environment: "lab" });
    const slow = await openSocket(s.session_id, s.token);
    const fast = await openSocket(s.session_id, s.token);
    const [snap] = await slow.until(hasType("session.snapshot"));
    await fast.until(hasType("session.snapshot"));
    // The slow client acknowledges once, then never again.
    slow.send({ type: "ack", seq: snap!.last_seq as number });
    slow.send({ type: "ping" });
    await slow.until(hasType("pong"));
    for (let i = 0; i < 8; i++) await step(s, "note", { text: `n${i}` });
    expect((await slow.closed).code).toBe(4408);
    const fastFrames = await fast.until(countType("step", 8));
    expect(
      eventFrames(fastFrames).filter((f) => f.type === "step")
    ).toHaveLength(8);
    fast.ws.close();
  });
});
