// The session WebSocket's stream: a snapshot first, each result before
// its step frame and the same to every socket, a step's events as one
// batch, what is ready while a tool runs, and exactly the missed frames
// replayed after a reconnect or an abort.

import { describe, expect, it } from "vitest";
import { EventFrameSchema, ServerFrameSchema } from "../../src/protocol";
import { gate } from "../fixtures/environments";
import { action, createResetSession, send, step } from "./helpers";
import { abort, inside, stubOf } from "./session-helpers";
import {
  countType,
  eventFrames,
  type Frame,
  hasType,
  openSocket,
  seqs
} from "./ws-helpers";

describe("session WebSocket: the stream", () => {
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
});
