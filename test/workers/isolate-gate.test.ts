// A session never has more code isolates in flight than the platform
// allows one Durable Object (10): the rest wait their turn, a run whose
// caller gave up frees its place, and a call that waited past its timeout
// says it never started.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { prepareCode } from "../../src/code/instrument";
import { sandboxModules } from "../../src/code/sandbox-source";
import { createEpisodeSession } from "../../src/environment/episode-session";
import { gateIsolates, loaderIsolates } from "../../src/session/isolates";
import {
  type IsolateStarter,
  MAX_ISOLATES_IN_FLIGHT
} from "../../src/tools/types";
import { coder } from "../fixtures/code";

const TICK = "__roost_tick_gate_test";
const LIMITS = { steps: 1_000_000, outputBytes: 4096, resultBytes: 4096 };

/** A real isolate whose code waits on `state.get`, a capability the test answers. */
const holding = (starter: IsolateStarter, wait: () => Promise<number>) => {
  const prepared = prepareCode('return await state.get("x");', TICK);
  if (!prepared.ok) throw new Error(prepared.message);
  return (signal?: AbortSignal) =>
    starter.run(
      sandboxModules(prepared.body, TICK),
      { limits: LIMITS },
      // Installed as a global by name: "state" is one the sandbox installs.
      { state: { get: () => wait(), keys: () => [] } },
      signal ? { signal } : {}
    );
};

/** A latch the test opens: how many wait on it now, and the most at once. */
const latch = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  let inside = 0;
  let most = 0;
  return {
    wait: async () => {
      inside += 1;
      most = Math.max(most, inside);
      await opened;
      inside -= 1;
      return 1;
    },
    open: () => open(),
    inside: () => inside,
    most: () => most
  };
};

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++)
    await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe("code isolates in flight", () => {
  it("runs at most 10 of a session's at once, the rest in turn", async () => {
    expect(MAX_ISOLATES_IN_FLIGHT).toBe(10);
    const l = latch();
    const run = holding(loaderIsolates(env, "LOADER")!, () => l.wait());
    const runs = Array.from({ length: 13 }, () => run());
    await until(() => l.inside() === 10);
    // Held there: no eleventh reaches its code while ten are in flight.
    await new Promise((r) => setTimeout(r, 200));
    expect(l.inside()).toBe(10);
    l.open();
    const replies = (await Promise.all(runs)) as { ok: boolean }[];
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(l.most()).toBe(10);
  });

  it("frees a place when the caller gives up, even on an isolate that never settles", async () => {
    const never: IsolateStarter = { run: () => new Promise(() => {}) };
    const gate = gateIsolates(never, 1);
    const stop = new AbortController();
    let second = false;
    void gate.run({}, {}, {}, { signal: stop.signal }).catch(() => {});
    void gate.run(
      {},
      {},
      {},
      {
        started: () => {
          second = true;
        }
      }
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(second).toBe(false);
    stop.abort();
    await until(() => second);
  });

  it("tells the model a call never started when it waited out its timeout in the queue", async () => {
    // One place, taken by a real run the test holds.
    const gate = gateIsolates(loaderIsolates(env, "LOADER")!, 1);
    const l = latch();
    const held = holding(gate, () => l.wait())();
    await until(() => l.inside() === 1);
    const session = createEpisodeSession(coder, { isolates: gate });
    await session.reset();
    const out = await session.call("bare_js", { code: "return 1" });
    expect(out.message.is_error).toBe(true);
    expect(out.message.content).toContain(
      "the code did not start within 1000 ms: this session already runs 10 code calls at once"
    );
    l.open();
    expect(await held).toMatchObject({ ok: true, result: "1" });
    // And the place is free again.
    const after = await session.call("bare_js", { code: "return 2" });
    expect(after.message).toMatchObject({ is_error: false });
  });
});
