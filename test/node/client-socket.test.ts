import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  type ConnectOptions,
  connectSession,
  RoostClientError,
  type SessionSocket,
  type SocketStatus,
  type StatusDetail
} from "../../src/client/index";
import { createSignal } from "../shared/signal";
import { FakeRoost, snapshotFrame, stepEvent } from "./helpers/fake-roost";
import { ManualClock } from "./helpers/manual-clock";

// The client socket against an in-process `ws` server the test scripts:
// time only moves through the injected clock, waits are on awaited events.

let fake: FakeRoost;
let clock: ManualClock;
let socket: SessionSocket | undefined;

beforeEach(async () => {
  fake = await FakeRoost.start();
  clock = new ManualClock();
});

afterEach(async () => {
  socket?.close();
  socket = undefined;
  await fake.stop();
});

/** Connects with everything recorded; `until` waits for a condition on what arrived. */
const connect = (options: Partial<ConnectOptions> = {}) => {
  const seqs: number[] = [];
  const types: string[] = [];
  const snapshots: number[] = [];
  const statuses: [SocketStatus, StatusDetail][] = [];
  const errors: Error[] = [];
  const expired: number[] = [];
  const signal = createSignal();
  const changed = signal.notify;
  let constructed = 0;
  // Counts sockets made, so "no reconnect yet" is checked without waiting.
  class CountingWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      constructed++;
    }
  }
  socket = connectSession({
    baseUrl: fake.baseUrl,
    sessionId: "s1",
    token: "v1.dev.tok",
    WebSocket: CountingWebSocket,
    clock,
    random: () => 0.5,
    heartbeatMs: 0,
    onEvent: (e) => {
      seqs.push(e.seq);
      types.push(e.type);
      changed();
    },
    onSnapshot: (s) => {
      snapshots.push(s.last_seq);
      changed();
    },
    onStatus: (status, detail) => {
      statuses.push([status, detail]);
      changed();
    },
    onError: (e) => {
      errors.push(e);
      changed();
    },
    onResumeExpired: (f) => {
      expired.push(f.after);
      changed();
    },
    ...options
  });
  const until = (predicate: () => boolean) => signal.until(predicate);
  const status = () => statuses.at(-1)?.[0];
  return {
    socket,
    seqs,
    types,
    snapshots,
    statuses,
    errors,
    expired,
    until,
    status,
    constructed: () => constructed
  };
};

describe("connectSession", () => {
  it("sends the token as a subprotocol and delivers the snapshot, then events in order", async () => {
    const c = connect();
    const server = await fake.connection(0);
    expect(server.protocols).toEqual(["roost.v1", "roost.token.v1.dev.tok"]);
    expect(server.url.pathname).toBe("/v1/sessions/s1/ws");
    expect(server.url.searchParams.has("after")).toBe(false);
    server.send(snapshotFrame(0));
    server.send(stepEvent(1, "reset"));
    server.send(stepEvent(2));
    server.send({
      ...stepEvent(3, "step.aborted"),
      step: 2,
      first_seq: 2
    });
    await c.until(() => c.seqs.length === 3);
    expect(c.snapshots).toEqual([0]);
    expect(c.types).toEqual(["reset", "step", "step.aborted"]);
    expect(c.socket.lastSeq).toBe(3);
    expect(c.errors).toEqual([]);
  });

  it("reconnects after a drop with exponential backoff on the injected clock and resumes with ?after", async () => {
    const c = connect();
    const first = await fake.connection(0);
    first.send(snapshotFrame(0));
    first.send(stepEvent(1));
    first.send(stepEvent(2));
    await c.until(() => c.seqs.length === 2);
    first.socket.terminate();
    await c.until(() => c.status() === "reconnecting");
    // Equal jitter with random() = 0.5: half of 250 ms plus a quarter.
    expect(c.statuses.at(-1)?.[1]).toMatchObject({ attempt: 1, delayMs: 188 });
    clock.advance(187);
    expect(c.constructed()).toBe(1);

    // The server refuses the next upgrades: each failure doubles the delay.
    fake.refuseUpgrades = 503;
    clock.advance(1);
    expect(c.constructed()).toBe(2);
    await c.until(
      () => c.statuses.filter(([s]) => s === "reconnecting").length === 2
    );
    expect(c.statuses.at(-1)?.[1]).toMatchObject({ attempt: 2, delayMs: 375 });
    clock.advance(375);
    await c.until(
      () => c.statuses.filter(([s]) => s === "reconnecting").length === 3
    );
    expect(c.statuses.at(-1)?.[1]).toMatchObject({ attempt: 3, delayMs: 750 });

    fake.refuseUpgrades = undefined;
    clock.advance(750);
    const second = await fake.connection(1);
    expect(second.url.searchParams.get("after")).toBe("2");
    expect(second.protocols).toContain("roost.token.v1.dev.tok");
    // A replay that overlaps what was seen delivers only what is new.
    second.send(stepEvent(2));
    second.send(stepEvent(3));
    second.send(stepEvent(4));
    await c.until(() => c.seqs.length === 4);
    expect(c.seqs).toEqual([1, 2, 3, 4]);
    expect(c.snapshots).toEqual([0]);
  });

  it("unpacks batch frames in order, dropping repeats and filling a gap inside one", async () => {
    fake.onEvents = ({ after }) => ({
      status: 200,
      body: { events: [stepEvent(after + 1)], next_after: after + 1 }
    });
    const c = connect();
    const server = await fake.connection(0);
    server.send(snapshotFrame(2));
    server.send({
      type: "batch",
      events: [stepEvent(1), stepEvent(3), stepEvent(4)]
    });
    // 5 is missing between the batches: read from /events, then 6 and 7.
    server.send({ type: "batch", events: [stepEvent(6), stepEvent(7)] });
    await c.until(() => c.seqs.includes(7));
    expect(c.seqs).toEqual([3, 4, 5, 6, 7]);
    expect(c.errors).toEqual([]);
    server.send({ type: "batch", events: "not a list" });
    await c.until(() => c.errors.length === 1);
    expect(c.errors[0]).toMatchObject({ code: "invalid_response" });
  });

  it("never delivers an event twice, whatever order repeats arrive in", async () => {
    const c = connect();
    const server = await fake.connection(0);
    server.send(snapshotFrame(5));
    for (const seq of [3, 5, 6, 6, 4, 7, 6, 8]) server.send(stepEvent(seq));
    await c.until(() => c.seqs.includes(8));
    expect(c.seqs).toEqual([6, 7, 8]);
  });

  it("acknowledges delivered events when asked to, and keeps going after a throwing handler", async () => {
    const c = connect({
      ackEvery: 2,
      onEvent: (e) => {
        c.seqs.push(e.seq);
        if (e.seq === 2) throw new Error("handler broke");
      }
    });
    const server = await fake.connection(0);
    server.send(snapshotFrame(0));
    for (const seq of [1, 2, 3, 4]) server.send(stepEvent(seq));
    expect(await server.next()).toEqual({ type: "ack", seq: 2 });
    expect(await server.next()).toEqual({ type: "ack", seq: 4 });
    await c.until(() => c.errors.length === 1);
    expect(c.errors[0]?.message).toBe("handler broke");
    expect(c.seqs).toEqual([1, 2, 3, 4]);
  });

  it("fills a gap from /events with the session token before delivering the frame after it", async () => {
    fake.onEvents = ({ after }) => ({
      status: 200,
      body: {
        events: [stepEvent(after + 1), stepEvent(after + 2)],
        next_after: after + 2
      }
    });
    const c = connect();
    const server = await fake.connection(0);
    server.send(snapshotFrame(0));
    server.send(stepEvent(1));
    server.send(stepEvent(4));
    server.send(stepEvent(5));
    await c.until(() => c.seqs.length === 5);
    expect(c.seqs).toEqual([1, 2, 3, 4, 5]);
    // Asked for the gap's size, no more.
    expect(fake.eventsRequests).toEqual([
      { after: 1, limit: 2, authorization: "Bearer v1.dev.tok" }
    ]);
  });

  it("reads on past a page the byte budget cut short, not taking it for the end", async () => {
    // One event a page, each cut by bytes: shorter than its limit, not the end.
    fake.onEvents = ({ after }) => ({
      status: 200,
      body: {
        events: [stepEvent(after + 1)],
        next_after: after + 1,
        truncated: true
      }
    });
    const c = connect();
    const server = await fake.connection(0);
    server.send(snapshotFrame(0));
    server.send(stepEvent(1));
    server.send(stepEvent(5));
    await c.until(() => c.seqs.length === 5);
    expect(c.seqs).toEqual([1, 2, 3, 4, 5]);
    expect(fake.eventsRequests.map((r) => [r.after, r.limit])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3]
    ]);
    expect(fake.connections[0]?.received).toEqual([]);
  });

  it("reports the protocol.error before a 4400 close as the reason, and does not reconnect", async () => {
    const c = connect({ after: 99 });
    const server = await fake.connection(0);
    expect(server.url.searchParams.get("after")).toBe("99");
    const reply = c.socket.send({ type: "call", tool: "incr" });
    await server.next();
    const error = {
      code: "invalid_request",
      message: "after=99 is past this session's last seq, 3.",
      details: { field: "after", last_seq: 3 }
    };
    server.send({ type: "protocol.error", error });
    server.socket.close(4400, "Invalid resume point.");
    await expect(reply).rejects.toMatchObject(error);
    await c.until(() => c.status() === "closed");
    expect(c.statuses.at(-1)?.[1]).toMatchObject({ code: 4400, error });
    expect(c.errors).toEqual([c.statuses.at(-1)?.[1].error]);
    expect(clock.pending).toEqual([]);
    expect(c.constructed()).toBe(1);
  });

  it("asks the socket to replay when /events is gone, and takes the fresh snapshot after resume.expired", async () => {
    fake.onEvents = () => ({
      status: 410,
      body: { error: { code: "gone", message: "trimmed" } }
    });
    const c = connect();
    const server = await fake.connection(0);
    server.send(snapshotFrame(0));
    server.send(stepEvent(1));
    server.send(stepEvent(40));
    expect(await server.next()).toEqual({ type: "resume", after: 1 });
    server.send({ type: "resume.expired", after: 1, oldest_seq: 30 });
    server.send(snapshotFrame(41));
    server.send(stepEvent(41));
    server.send(stepEvent(42));
    await c.until(() => c.seqs.includes(42));
    expect(c.expired).toEqual([1]);
    expect(c.snapshots).toEqual([0, 41]);
    expect(c.seqs).toEqual([1, 42]);
  });

  it("stops for good on a 4403 close and fails what was waiting", async () => {
    const c = connect();
    const server = await fake.connection(0);
    const reply = c.socket.send({ type: "call", tool: "incr" });
    await server.next();
    server.socket.close(
      4403,
      "These credentials do not admit to this session."
    );
    await expect(reply).rejects.toMatchObject({ code: "forbidden" });
    expect(c.status()).toBe("closed");
    expect(c.statuses.at(-1)?.[1]).toMatchObject({ code: 4403 });
    expect(clock.pending).toEqual([]);
    clock.advance(60_000);
    expect(c.constructed()).toBe(1);
    await expect(c.socket.send({ type: "reset" })).rejects.toBeInstanceOf(
      RoostClientError
    );
  });

  it("correlates replies with their requests by id", async () => {
    const c = connect();
    const server = await fake.connection(0);
    server.send(snapshotFrame(0));
    const step = c.socket.send({
      type: "step",
      action: { tool_calls: [] },
      idempotency_key: "k-step"
    });
    const call = c.socket.send({ type: "call", tool: "incr", id: "mine" });
    const bad = c.socket.send({ type: "reset" });
    const sent = [
      await server.next(),
      await server.next(),
      await server.next()
    ];
    expect(sent[0]).toMatchObject({ type: "step", idempotency_key: "k-step" });
    expect(sent[1]).toMatchObject({ type: "call", id: "mine" });
    // Step, reset and call get an idempotency key when none was given.
    expect(sent[1]?.idempotency_key).toEqual(expect.any(String));
    server.send({ type: "reply", id: "mine", ok: true, value: { n: 2 } });
    server.send({ type: "reply", id: sent[0]?.id, ok: true, value: { n: 1 } });
    server.send({
      type: "protocol.error",
      id: sent[2]?.id,
      error: { code: "invalid_request", message: "no" }
    });
    expect(await call).toEqual({ n: 2 });
    expect(await step).toEqual({ n: 1 });
    await expect(bad).rejects.toMatchObject({
      code: "invalid_request",
      message: "no"
    });
  });

  it("sends unanswered requests again after a reconnect, with the same id and key", async () => {
    const c = connect();
    const first = await fake.connection(0);
    first.send(snapshotFrame(0));
    const reply = c.socket.call("incr");
    const original = await first.next();
    first.socket.terminate();
    await c.until(() => c.status() === "reconnecting");
    clock.advance(188);
    const second = await fake.connection(1);
    const again = await second.next();
    expect(again).toEqual(original);
    second.send({
      type: "reply",
      id: again.id,
      ok: true,
      value: { content: "counter=1", is_error: false, results: [] }
    });
    expect((await reply).content).toBe("counter=1");
  });

  it("pings on the heartbeat and drops a socket that stays silent", async () => {
    const c = connect({ heartbeatMs: 1000 });
    const server = await fake.connection(0);
    server.send(snapshotFrame(0));
    await c.until(() => c.snapshots.length === 1);
    clock.advance(1000);
    expect(await server.next()).toEqual({ type: "ping" });
    // Frames arrive in order: once the event is in, so is the pong.
    server.send({ type: "pong" });
    server.send(stepEvent(1));
    await c.until(() => c.seqs.length === 1);
    clock.advance(1000);
    expect(await server.next()).toEqual({ type: "ping" });
    expect(c.status()).toBe("open");
    // No answer to this ping: the next beat gives up on the socket.
    clock.advance(1000);
    expect(c.status()).toBe("reconnecting");
    expect(c.statuses.at(-1)?.[1]).toMatchObject({
      reason: "heartbeat timeout"
    });
  });
});
