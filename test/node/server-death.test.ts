// The server survives its own death: `npm start` with 256 counter
// sessions playing episodes at once, 32 of them watched over `ws`
// sockets, and the workerd that holds them killed with SIGKILL mid-load.
// The dev server sees it die and starts it again with the same state; the
// clients retry each step with its idempotency key. Afterwards every
// acknowledged step is there and none twice, and each socket reconnected,
// resumed from its last seq and saw every event once, in order. Beside
// them, catalog sessions start decision-tree runs one after another: a
// run in flight when the process dies goes on from its last committed
// pass, so each acknowledged run completes with the passes and tasks of
// one that was never interrupted.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { descendants } from "../../src/cli/dev-watch";
import {
  connectSession,
  RoostClient,
  type RoostSession,
  type SessionSocket
} from "../../src/client/index";
import type { EventFrame, RunStatus } from "../../src/protocol";
import { type NpmStart, npmStart } from "./helpers/npm-start";

const SESSIONS = 256;
const WATCHED = 32;
const RUNNERS = 16;
const PROMPT = "Cat toys rated 4 or higher?";

let server: NpmStart;
beforeAll(async () => {
  server = await npmStart();
}, 120_000);
afterAll(() => server.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The workerd processes wrangler runs (not the sandbox host's). */
const serverWorkerds = (root: number) =>
  descendants(root)
    .filter((p) => p.comm === "workerd")
    .filter(
      (p) =>
        !readFileSync(`/proc/${p.pid}/cmdline`, "utf8").includes("sandbox-host")
    );

const incr = (id: string) => ({
  role: "assistant" as const,
  tool_calls: [
    {
      id,
      type: "function" as const,
      function: { name: "incr", arguments: "{}" }
    }
  ]
});

interface Player {
  session: RoostSession;
  /** Steps acknowledged (a 200) in the episode now running. */
  acked: number;
  episodes: number;
  /** Episodes finished since the server came back. */
  after: number;
  events: EventFrame[];
  reconnected: boolean;
  socket?: SessionSocket;
}

describe("npm start killed mid-load", () => {
  it("restarts with every acknowledged step and run, nothing twice, and sockets resumed", async () => {
    // Retries ride out the restart: each step keeps its idempotency key.
    const client = new RoostClient({
      baseUrl: server.base,
      retries: 80,
      retryBaseMs: 100,
      retryMaxMs: 1_000
    });
    const players: Player[] = [];
    for (let i = 0; i < SESSIONS; i += 32) {
      const made = await Promise.all(
        Array.from({ length: 32 }, () =>
          client.createSession({ environment: "counter" })
        )
      );
      for (const session of made)
        players.push({
          session,
          acked: 0,
          episodes: 0,
          after: 0,
          events: [],
          reconnected: false
        });
    }
    for (const p of players.slice(0, WATCHED)) {
      p.socket = connectSession({
        baseUrl: server.base,
        sessionId: p.session.id,
        token: p.session.token,
        WebSocket,
        after: 0,
        backoff: { baseMs: 100, maxMs: 1_000 },
        onEvent: (event) => p.events.push(event),
        onStatus: (status) => {
          if (status === "reconnecting") p.reconnected = true;
        }
      });
    }
    // What one run does when nothing interrupts it.
    const once = await client.createSession({ environment: "catalog" });
    await once.reset();
    const reference = await once.run(PROMPT);
    expect(reference.state).toBe("completed");
    const runners = await Promise.all(
      Array.from({ length: RUNNERS }, () =>
        client.createSession({ environment: "catalog" })
      )
    );
    const runs: RunStatus[][] = runners.map(() => []);
    let back = false;
    let playing = true;
    const play = async (p: Player) => {
      while (playing) {
        await p.session.reset({ idempotencyKey: `r-${p.episodes}` });
        p.acked = 0;
        for (let n = 1; ; n++) {
          const id = `e${p.episodes}-c${n}`;
          const out = await p.session.step(incr(id), { idempotencyKey: id });
          p.acked = n;
          expect(out.observations[0]).toMatchObject({
            content: `counter=${n}`,
            is_error: false
          });
          if (out.done) break;
        }
        p.episodes += 1;
        if (back) p.after += 1;
      }
    };
    // A step that answers out of line (a lost or a doubled step) stops the
    // whole load at once.
    let failed: unknown;
    // The kill is armed once the load is well under way, and fired by the
    // next runner whose run start is acknowledged. Its victims are found
    // when it is armed, so nothing but the signal stands between the
    // acknowledgement and the death.
    let armed = false;
    let victims: number[] = [];
    let killedAt = 0;
    const arm = () => {
      victims = serverWorkerds(server.pid).map((p) => p.pid);
      expect(victims.length).toBeGreaterThan(0);
      armed = true;
    };
    const kill = () => {
      armed = false;
      killedAt = Date.now();
      for (const pid of victims) process.kill(pid, "SIGKILL");
    };
    const runAll = async (i: number) => {
      const session = runners[i]!;
      for (let n = 0; playing; n++) {
        await session.reset({ idempotencyKey: `reset-${n}` });
        const { run_id } = await session.startRun(PROMPT, {
          idempotencyKey: `run-${n}`
        });
        if (armed) kill();
        let status = await session.readRun(run_id, 60);
        while (status.state === "queued" || status.state === "running")
          status = await session.readRun(run_id, 60);
        runs[i]!.push(status);
      }
    };
    const games = [
      ...players.map((p) => play(p)),
      ...runners.map((_, i) => runAll(i))
    ].map((game) =>
      game.catch((error: unknown) => {
        failed ??= error;
        playing = false;
      })
    );
    const waitFor = async (done: () => boolean) => {
      while (!done() && failed === undefined) await sleep(100);
      if (failed !== undefined) throw failed;
    };
    // Well into the load, kill the process that holds the sessions.
    await waitFor(
      () => players.reduce((s, p) => s + p.episodes * 10 + p.acked, 0) >= 1_500
    );
    // A run takes the server a few hundred milliseconds at most, and its
    // acknowledgement reaches this busy process late: by the kill, that
    // run and every other may have ended. A kill that caught no run says
    // nothing about runs, so then the load goes on and the kill is armed
    // again (one more death every session must survive).
    const restarts = () =>
      server.output().split("Roost: back, listening on").length - 1;
    const caught = () =>
      runs
        .flat()
        .some(
          (r) =>
            Date.parse(r.created_at) < killedAt &&
            Date.parse(r.updated_at) > killedAt
        );
    for (let kills = 1; ; kills++) {
      arm();
      await waitFor(() => !armed);
      await waitFor(() => restarts() === kills);
      // Each runner's run under way at the kill has ended once the runner
      // has one started after it.
      await waitFor(() =>
        runs.every((mine) =>
          mine.some((r) => Date.parse(r.created_at) > killedAt)
        )
      );
      if (caught()) break;
    }
    back = true;
    // Every session plays a whole episode on the restarted server.
    await waitFor(() => players.every((p) => p.after >= 1));
    playing = false;
    await Promise.all(games);
    if (failed !== undefined) throw failed;

    expect(server.output()).toContain(
      "the server's workerd process died (killed, out of memory, or a crash); restarting it"
    );
    await Promise.all(
      players.map(async (p) => {
        // The last episode's every acknowledged step, each once.
        expect(await p.session.state()).toEqual({ count: p.acked });
        const ids: string[] = [];
        for await (const m of p.session.items.messages())
          if (m.role === "assistant")
            for (const call of m.tool_calls ?? []) ids.push(call.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toContain(`e${p.episodes - 1}-c${p.acked}`);
      })
    );
    // Runs: each acknowledged one completed as an uninterrupted one does,
    // and the last episode's transcript holds its run's answer once.
    const { passes, tasks, outcome, final_text } = reference;
    // Some run was under way when the process died, or this proves nothing.
    expect(caught()).toBe(true);
    await Promise.all(
      runners.map(async (session, i) => {
        expect(runs[i]!.length).toBeGreaterThan(1);
        for (const run of runs[i]!)
          expect(run).toMatchObject({
            state: "completed",
            passes,
            tasks,
            outcome,
            final_text
          });
        let answers = 0;
        for await (const m of session.items.messages())
          if (m.role === "assistant" && m.content === final_text) answers++;
        expect(answers).toBe(1);
      })
    );
    // Sockets: they reconnected and resumed, each event once and in seq
    // order, up to the session's last.
    await Promise.all(
      players.slice(0, WATCHED).map(async (p) => {
        const all: EventFrame[] = [];
        for await (const e of p.session.items.events(0)) all.push(e);
        const last = all.at(-1)!.seq;
        for (let i = 0; i < 100 && (p.socket!.lastSeq ?? 0) < last; i++)
          await sleep(50);
        p.socket!.close();
        expect(p.reconnected).toBe(true);
        const seqs = p.events.map((e) => e.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        expect(new Set(seqs).size).toBe(seqs.length);
        expect(seqs.at(-1)).toBe(last);
        // What the socket saw is what the session kept.
        expect(seqs).toEqual(
          all.map((e) => e.seq).filter((s) => s >= seqs[0]!)
        );
      })
    );
  }, 300_000);
});
