import { afterAll, describe, expect, inject, it } from "vitest";
import { WebSocket } from "ws";
import { scriptedPolicy } from "../../examples/scripted-policy/index";
import {
  connectSession,
  createClient,
  type FetchLike,
  RoostClientError,
  type RoostSession,
  rollout,
  type SocketStatus
} from "../../src/client/index";
import type { CreateSessionResponse } from "../../src/protocol/index";
import { createSignal } from "../shared/signal";
import { ManualClock } from "./helpers/manual-clock";

// The client against the real runtime under wrangler dev.
const baseUrl = inject("baseUrl");
const client = createClient({ baseUrl });
const created: RoostSession[] = [];

const session = async (environment = "counter", task?: { target: number }) => {
  const s = await client.createSession({
    environment,
    ...(task ? { task } : {})
  });
  created.push(s);
  return s;
};

const incr = (id: string) => ({
  tool_calls: [
    {
      id,
      type: "function" as const,
      function: { name: "incr", arguments: "{}" }
    }
  ]
});

afterAll(async () => {
  for (const s of created) await s.delete().catch(() => undefined);
});

describe("client against wrangler dev", () => {
  it("picks tasks from a split: rollout's split option and reset's taskIndex + split", async () => {
    const { trajectories, summary } = await rollout({
      baseUrl,
      environment: "calculator",
      policy: scriptedPolicy,
      episodes: 2,
      split: "train"
    });
    expect(summary).toMatchObject({ errors: 0, mean_return: 1 });
    expect(trajectories.map((t) => [t.task_index, t.split])).toEqual([
      [0, "train"],
      [1, "train"]
    ]);
    const s = await session("calculator");
    const fromTrain = await s.reset({ taskIndex: 0, split: "train" });
    const fromEval = await s.reset({ taskIndex: 0, split: "eval" });
    expect(fromEval.observations[0]?.content).not.toBe(
      fromTrain.observations[0]?.content
    );
    expect(await s.reset({ taskIndex: 0, split: "train" })).toEqual(fromTrain);
    await expect(
      s.reset({ taskIndex: 1000, split: "eval" })
    ).rejects.toMatchObject({ code: "invalid_request", status: 400 });
    await expect(
      rollout({
        baseUrl,
        environment: "calculator",
        policy: scriptedPolicy,
        episodes: 1,
        split: "holdout"
      })
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("rolls out 50 calculator episodes with the scripted policy for a mean reward of 1 and deletes every session", async () => {
    const environments = await client.environments();
    expect(environments.map((e) => e.name)).toContain("calculator");
    // Remembers each session's token from the create responses, to check
    // afterwards that every session is gone.
    const tokens = new Map<string, string>();
    const recording: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (init.method === "POST" && url.endsWith("/v1/sessions")) {
        const body = (await response.clone().json()) as CreateSessionResponse;
        tokens.set(body.session_id, body.token);
      }
      return response;
    };
    const { trajectories, summary } = await rollout({
      baseUrl,
      environment: "calculator",
      policy: scriptedPolicy,
      episodes: 50,
      concurrency: 8,
      fetch: recording
    });
    expect(summary).toMatchObject({
      total: 50,
      done: 50,
      errors: 0,
      undeleted: 0,
      mean_return: 1,
      return_std: 0,
      successes: 50,
      error_codes: {}
    });
    expect(trajectories.map((t) => t.episode)).toEqual([...Array(50).keys()]);
    for (const t of trajectories) {
      expect(t).toMatchObject({
        done: true,
        truncated: false,
        return: 1,
        error: null,
        deleted: true
      });
      expect(t.task_index).toBe(t.episode);
      expect(t.actions.map((a) => a.tool_calls?.[0]?.function.name)).toEqual([
        "calculator",
        "submit_answer"
      ]);
      expect(t.observations).toHaveLength(3);
      expect(t.step_ms).toHaveLength(2);
    }
    expect([...tokens.keys()].sort()).toEqual(
      trajectories.map((t) => t.session_id).sort()
    );
    for (const [id, token] of tokens)
      await expect(client.session(id, token).status()).rejects.toMatchObject({
        code: "not_found"
      });
  });

  it("records an episode's error without stopping the run, and still deletes its session", async () => {
    let calls = 0;
    const { trajectories, summary } = await rollout({
      baseUrl,
      environment: "counter",
      episodes: 3,
      concurrency: 3,
      maxSteps: 2,
      policy: (observations, tools, history) => {
        calls++;
        if (calls === 1) throw new Error("policy broke");
        return scriptedPolicy(observations, tools, history);
      }
    });
    expect(summary).toMatchObject({
      done: 3,
      errors: 1,
      undeleted: 0,
      error_codes: { policy_error: 1 }
    });
    const broken = trajectories.filter((t) => t.error);
    expect(broken).toHaveLength(1);
    expect(broken[0]?.error).toEqual({
      code: "policy_error",
      message: "policy broke"
    });
    // The others hit the run's own step limit (the counter's target is 10).
    for (const t of trajectories.filter((t) => !t.error)) {
      expect(t).toMatchObject({ truncated: true, done: false, deleted: true });
      expect(t.actions).toHaveLength(2);
    }
    expect(trajectories.every((t) => t.deleted)).toBe(true);
  });

  it("drives every session route and reports errors with their code and status", async () => {
    const s = await session("counter", { target: 2 });
    expect((await s.status()).status).toBe("created");
    await expect(s.step(incr("early"))).rejects.toMatchObject({
      code: "episode_not_running",
      status: 409
    });
    const { observations, tools } = await s.reset({
      idempotencyKey: "reset-1"
    });
    expect(observations).toEqual([
      { role: "user", content: "Count to 2. counter=0" }
    ]);
    expect(tools.map((t) => t.function.name)).toEqual(["incr", "decr"]);
    expect((await s.step(incr("c1"))).observations[0]).toMatchObject({
      content: "counter=1"
    });
    expect((await s.call("incr")).content).toBe("counter=2");
    expect(await s.state()).toEqual({ count: 2 });
    expect(await s.patchState({ key: "count", value: 0 })).toEqual({
      key: "count",
      value: 0
    });

    const added = await s.add("notes", "todo", {
      objects: [{ text: "a" }],
      metadata: { by: "test" }
    });
    expect(added.entry).toMatchObject({
      tool: "notes",
      name: "todo",
      index: 0
    });
    await s.add("notes", "todo", { objects: [{ text: "b" }] });
    await s.replace(
      "notes",
      "todo",
      { objects: [{ text: "c" }] },
      { index: -1 }
    );
    expect(
      (await s.environment({ tool: "notes", name: "todo" })).entries.map(
        (e) => e.objects[0]?.text
      )
    ).toEqual(["a", "c"]);
    expect(
      (await s.environment({ tool: "notes", name: "todo", index: 0 })).entry
        .metadata
    ).toEqual({ by: "test" });
    expect(Object.keys((await s.environment()).store)).toEqual(["notes"]);
    expect(await s.keys()).toEqual({
      keys: [{ tool: "notes", name: "todo", entries: 2, objects: 2 }]
    });
    expect(await s.remove("notes", "todo", { index: 0 })).toEqual({
      removed: 1
    });
    await expect(s.remove("notes", "missing")).rejects.toMatchObject({
      code: "not_found",
      status: 404
    });

    expect((await s.messages()).messages.length).toBeGreaterThanOrEqual(3);
    expect(await s.frame()).toHaveProperty("info");
    const { events, next_after } = await s.events(0);
    expect(events[0]?.type).toBe("reset");
    expect(next_after).toBe(events.at(-1)?.seq);

    await expect(
      client.session(s.id, "v1.dev.bogus").status()
    ).rejects.toMatchObject({ code: "forbidden", status: 403 });
    expect(await s.delete()).toEqual({ session_id: s.id, deleted: true });
    const gone = await s.status().catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(RoostClientError);
    expect(gone).toMatchObject({ code: "not_found", status: 404 });
  });

  it("reconnects after its socket is killed and delivers every event exactly once, in order", async () => {
    const s = await session("counter", { target: 50 });
    await s.reset();
    const clock = new ManualClock();
    const sockets: WebSocket[] = [];
    // Keeps the client's sockets so the test can kill one from outside.
    class KeptWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols);
        sockets.push(this);
      }
    }
    const seqs: number[] = [];
    const statuses: SocketStatus[] = [];
    const signal = createSignal();
    const changed = signal.notify;
    const until = (predicate: () => boolean) => signal.until(predicate);
    const stepEvents: number[] = [];
    const socket = connectSession({
      baseUrl,
      sessionId: s.id,
      token: s.token,
      WebSocket: KeptWebSocket,
      clock,
      heartbeatMs: 0,
      onEvent: (e) => {
        seqs.push(e.seq);
        if (e.type === "step") stepEvents.push(e.step);
        changed();
      },
      onSnapshot: changed,
      onStatus: (status) => {
        statuses.push(status);
        changed();
      }
    });
    try {
      await until(() => socket.lastSeq !== undefined);
      await s.step(incr("a"));
      await s.step(incr("b"));
      await until(() => stepEvents.length === 2);
      const seen = socket.lastSeq;

      sockets[0]!.terminate();
      await until(() => statuses.at(-1) === "reconnecting");
      await s.step(incr("c"));
      await s.step(incr("d"));
      clock.advance(30_000);
      await until(() => stepEvents.length === 4);
      expect(sockets).toHaveLength(2);
      expect(new URL(sockets[1]!.url).searchParams.get("after")).toBe(
        String(seen)
      );

      // A request on the socket: its reply comes after its events.
      const reply = await socket.step(incr("e"));
      expect(reply.observations[0]).toMatchObject({ content: "counter=5" });
      expect(stepEvents).toEqual([1, 2, 3, 4, 5]);

      const logged = (await s.events(0)).events.map((e) => e.seq);
      const first = seqs[0]!;
      expect(seqs).toEqual(logged.filter((seq) => seq >= first));
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      socket.close();
    }
  });

  it("forks a session over HTTP and over the socket; each copy then steps on its own", async () => {
    const s = await session("counter", { target: 50 });
    await s.reset();
    await s.step(incr("a"));
    const [left, right] = await s.fork(2);
    created.push(left!, right!);
    expect(left!.token).not.toBe(s.token);
    await left!.step(incr("l1"));
    await left!.step(incr("l2"));
    expect(await left!.state()).toMatchObject({ count: 3 });
    expect(await right!.state()).toMatchObject({ count: 1 });
    expect((await right!.events(0)).events[0]).toMatchObject({
      type: "forked",
      source: s.id
    });

    const socket = connectSession({
      baseUrl,
      sessionId: s.id,
      token: s.token,
      WebSocket,
      heartbeatMs: 0,
      onEvent: () => {}
    });
    try {
      const forked = await socket.fork(1);
      const [copy] = forked.sessions;
      const viaSocket = client.session(copy!.session_id, copy!.token);
      created.push(viaSocket);
      expect(copy!.ws_url).toBe(
        `${baseUrl.replace("http", "ws")}/v1/sessions/${copy!.session_id}/ws`
      );
      expect(await viaSocket.status()).toMatchObject({ steps: 1 });
    } finally {
      socket.close();
    }
  });

  it("stops for good when the server closes with 4403", async () => {
    const a = await session();
    const b = await session();
    const clock = new ManualClock();
    const statuses: { status: SocketStatus; code?: number }[] = [];
    let closed: () => void = () => {};
    const done = new Promise<void>((r) => {
      closed = r;
    });
    const socket = connectSession({
      baseUrl,
      sessionId: a.id,
      token: b.token,
      WebSocket,
      clock,
      heartbeatMs: 0,
      onEvent: () => {},
      onStatus: (status, detail) => {
        statuses.push({
          status,
          ...(detail.code ? { code: detail.code } : {})
        });
        if (status === "closed") closed();
      }
    });
    await done;
    expect(statuses.at(-1)).toEqual({ status: "closed", code: 4403 });
    expect(clock.pending).toEqual([]);
    await expect(socket.call("incr")).rejects.toMatchObject({ code: "closed" });
  });
});
