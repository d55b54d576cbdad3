// The commit protocol on its own, driven inside a real session object with
// hand-written mutation bodies: what commits, what a failure leaves behind,
// and which kinds of mutation the committed episode admits.
import { describe, expect, it } from "vitest";
import type { RoostError } from "../../src/errors";
import type { MutationContext, MutationKind } from "../../src/session/commit";
import { readSessionRow } from "../../src/storage/session-row";
import { SqliteStoreBackend } from "../../src/storage/store-backend";
import { result } from "../../src/store/result";
import {
  events,
  inside,
  newResetSession,
  newSession,
  ok,
  type SessionApi,
  snapshot
} from "./session-helpers";

const mutate = <T>(
  stub: SessionApi,
  kind: MutationKind,
  body: (m: MutationContext) => Promise<T>
) =>
  inside(stub, (obj) => obj.runtime.commits.mutate(kind, undefined, body)).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error })
  );

const inflight = (stub: SessionApi) =>
  inside(
    stub,
    async (obj) => readSessionRow(obj.runtime.shared.sql)?.inflight ?? null
  );

describe("Committer", () => {
  it("commits the body's writes and its onCommit writes together, then runs afterCommit", async () => {
    const { stub } = await newResetSession();
    const order: string[] = [];
    const outcome = await mutate(stub, "edit", async (m) => {
      m.parts.state.set("count", 7);
      m.parts.environment.add(
        "probe",
        result({ name: "x", objects: [{ a: 1 }] })
      );
      m.onCommit(() => order.push("in the transaction"));
      m.afterCommit(() => order.push("after it"));
      return "answer";
    });
    expect(outcome).toEqual({ ok: true, value: "answer" });
    expect(order).toEqual(["in the transaction", "after it"]);
    expect(ok(await stub.readState()).state.count).toBe(7);
    const store = ok(await stub.readStore({ limit: 10 }));
    expect(JSON.stringify(store)).toContain('"a":1');
    expect(await inflight(stub)).toBeNull();
  });

  it("leaves the session exactly as it was when the body throws, and marks its streamed events aborted", async () => {
    const { stub } = await newResetSession();
    const before = await snapshot(stub);
    const lastSeq = (await events(stub)).at(-1)!.seq;
    const outcome = await mutate(stub, "edit", async (m) => {
      m.parts.state.set("count", 99);
      m.parts.environment.add(
        "probe",
        result({ name: "x", objects: [{ a: 1 }] })
      );
      m.parts.hidden.set("secret", 1);
      throw new Error("boom");
    });
    expect(outcome).toMatchObject({ ok: false, error: { message: "boom" } });
    expect(await snapshot(stub)).toEqual(before);
    expect(await inflight(stub)).toBeNull();
    const after = (await events(stub)).filter((e) => e.seq > lastSeq);
    // The staged edits streamed their events; the last one takes them back.
    expect(after.length).toBeGreaterThan(1);
    expect(after.at(-1)).toMatchObject({
      type: "step.aborted",
      first_seq: lastSeq + 1
    });
  });

  it("rolls back everything when an onCommit write fails, and skips afterCommit", async () => {
    const { stub } = await newResetSession();
    const before = await snapshot(stub);
    let after = false;
    const outcome = await mutate(stub, "edit", async (m) => {
      m.parts.state.set("count", 5);
      m.onCommit(() => {
        throw new Error("late");
      });
      m.afterCommit(() => {
        after = true;
      });
    });
    expect(outcome).toMatchObject({ ok: false, error: { message: "late" } });
    expect(after).toBe(false);
    expect(await snapshot(stub)).toEqual(before);
    expect(await inflight(stub)).toBeNull();
  });

  it("keeps the entry counters an abandoned mutation handed out, so streamed ids are never reused", async () => {
    const { stub } = await newResetSession();
    const counter = await inside(stub, async (obj) => {
      const { shared, commits } = obj.runtime;
      const episode = shared.requireRow().episode;
      commits.abandon(
        {
          kind: "step",
          episode,
          firstSeq: shared.events.lastSeq + 1,
          step: 1,
          counters: { "probe\u0000x": 4 }
        },
        episode
      );
      return new SqliteStoreBackend(shared.sql, episode).entryCounter(
        "probe",
        "x"
      );
    });
    expect(counter).toBe(4);
    // Nothing was streamed after firstSeq, so there is nothing to take back.
    expect((await events(stub)).at(-1)?.type).not.toBe("step.aborted");
  });

  it("admits each kind of mutation by one table over the committed episode", async () => {
    const { stub } = await newSession();
    const refused = async (kind: MutationKind) => {
      const outcome = await mutate(stub, kind, async () => "ran");
      if (outcome.ok) return "ran";
      const error = outcome.error as RoostError;
      return `${error.code}: ${error.message}`;
    };
    // Before the first reset only a reset may run.
    expect(await refused("step")).toBe(
      "episode_not_running: Reset the session before stepping."
    );
    for (const kind of ["call", "edit", "run", "pass"] as const)
      expect(await refused(kind)).toBe(
        "episode_not_running: Reset the session first: it has no episode yet."
      );
    expect(await refused("reset")).toBe("ran");
    expect(ok(await stub.status()).episode).toBe(1);
    // A step that ends the episode: further steps are refused, edits are not.
    const ended = await mutate(stub, "step", async (m) => {
      m.row.done = true;
    });
    expect(ended.ok).toBe(true);
    expect(await refused("step")).toBe(
      "episode_not_running: The episode has ended; reset to start another."
    );
    for (const kind of ["call", "edit", "run", "pass", "reset"] as const)
      expect(await refused(kind)).toBe("ran");
  });

  it("answers a repeated key with the stored response without running the body again", async () => {
    const { stub } = await newResetSession();
    const key = { scope: "edit", key: "k-1", hash: "h" };
    const runs = await inside(stub, async (obj) => {
      let ran = 0;
      const body = async () => ({ n: ++ran });
      const first = await obj.runtime.commits.mutate("edit", key, body);
      const second = await obj.runtime.commits.mutate("edit", key, body);
      const other = await obj.runtime.commits
        .mutate("edit", { ...key, hash: "other" }, body)
        .catch((e: RoostError) => e.code);
      return { first, second, other, ran };
    });
    expect(runs.first).toEqual({ n: 1 });
    expect(runs.second).toEqual({ n: 1 });
    expect(runs.ran).toBe(1);
    expect(runs.other).toBe("idempotency_mismatch");
  });
});
