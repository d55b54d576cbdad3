// Resume points of the event log, checked alike over HTTP and on the
// socket: past the last seq, before what the log retains, and none.
import { describe, expect, it } from "vitest";
import { createResetSession, errorOf, json, send } from "./helpers";
import { inside, stubOf } from "./session-helpers";
import { openSocket } from "./ws-helpers";

describe("resume points, checked alike everywhere", () => {
  it("answers an `after` past the last seq with a 400 over HTTP", async () => {
    const s = await createResetSession();
    const last = (
      await json<{ events: { seq: number }[] }>(await s.call("/events?after=0"))
    ).events.at(-1)!.seq;
    expect((await s.call(`/events?after=${last}`)).status).toBe(200);
    const past = await s.call(`/events?after=${last + 1}`);
    expect(past.status).toBe(400);
    expect(await errorOf(past)).toMatchObject({
      code: "invalid_request",
      details: { field: "after", last_seq: last }
    });
  });

  it("reads every retained event without `after`, and a 410 with an `after` before them", async () => {
    const s = await createResetSession();
    const stub = stubOf(s.session_id);
    await inside(stub, (instance) => {
      instance.runtime.setLimits({ eventsRetained: 5 });
    });
    for (let n = 0; n < 4; n++) {
      const res = await s.call(
        "/step",
        send("POST", {
          action: {
            tool_calls: [
              {
                id: `c${n}`,
                type: "function",
                function: { name: "incr", arguments: "{}" }
              }
            ]
          }
        })
      );
      expect(res.status).toBe(200);
    }
    const retained = await json<{ events: { seq: number }[] }>(
      await s.call("/events")
    );
    const seqs = retained.events.map((e) => e.seq);
    expect(seqs[0]).toBeGreaterThan(1);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    const trimmed = await s.call("/events?after=0");
    expect(trimmed.status).toBe(410);
    expect(await errorOf(trimmed)).toMatchObject({
      code: "gone",
      details: { oldest_seq: seqs[0] }
    });
  });

  it.each(["abc", "-1", "1e3", "99999"])(
    "closes a socket opened with ?after=%s with a protocol.error and 4400",
    async (after) => {
      const s = await createResetSession();
      const socket = await openSocket(s.session_id, s.token, `?after=${after}`);
      const closed = await socket.closed;
      expect(closed.code).toBe(4400);
      expect(socket.frames.map((f) => f.type)).toEqual(["protocol.error"]);
      expect(socket.frames[0]).toMatchObject({
        error: { code: "invalid_request" }
      });
    }
  );

  it("answers a resume frame past the last seq in band and stays open", async () => {
    const s = await createResetSession();
    const socket = await openSocket(s.session_id, s.token);
    await socket.until((f) => f.some((x) => x.type === "session.snapshot"));
    socket.send({ type: "resume", after: 10_000 });
    await socket.until((f) => f.some((x) => x.type === "protocol.error"));
    socket.send({ type: "ping" });
    await socket.until((f) => f.some((x) => x.type === "pong"));
    socket.send({ type: "resume", after: 0 });
    await socket.until((f) => f.some((x) => x.type === "reset"));
  });
});
