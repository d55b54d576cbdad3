// Edges of the event log written one row per commit and of tables made on
// first use: retention never leaves seqs to be handed out again, an event
// of a run's end never lands inside a step that may abort, and reads and
// forks make no table a session never used.
import { describe, expect, it } from "vitest";
import { beginFork } from "../../src/session/fork";
import { readRun, writeRun } from "../../src/storage/run-rows";
import { gate } from "../fixtures/environments";
import {
  abort,
  call,
  events,
  fresh,
  inside,
  newSession,
  ok
} from "./session-helpers";

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name"
    )
    .toArray()
    .map((r) => r.name);

describe("the event log's edges", () => {
  it("keeps the newest commit however small the byte budget, so a restart never reuses a seq", async () => {
    const { id, stub } = await newSession();
    ok(await stub.reset({}));
    ok(await stub.step(call("bump")));
    await inside(stub, (o) =>
      o.runtime.setLimits({ eventsRetainedBytes: 4096 })
    );
    // One step whose events pass the budget together (each alone would not).
    ok(await stub.step(call("note", { text: "x".repeat(1500) })));
    const seen = await inside(stub, (o) => o.runtime.core.events.lastSeq);
    const left = await inside(
      stub,
      (_o, s) =>
        s.storage.sql
          .exec<{ n: number }>("SELECT count(*) AS n FROM events")
          .one().n
    );
    expect(left).toBe(1);
    await abort(stub);
    const again = fresh(id);
    ok(await again.step(call("bump")));
    const after = (await events(again)).map((e) => e.seq);
    expect(Math.min(...after.filter((s) => s > seen))).toBe(seen + 1);
    expect(after.filter((s) => s <= seen)).toEqual(
      after.slice(0, after.indexOf(seen) + 1)
    );
  });

  it("ends a cancelled run after the step in flight, outside what its abort covers", async () => {
    const { id, stub } = await newSession();
    ok(await stub.reset({}));
    const runId = `run-${crypto.randomUUID()}`;
    // A run the client asked to cancel (a cancel only raises the flag).
    await inside(stub, (o, s) =>
      writeRun(s.storage.sql, {
        runId,
        episode: o.runtime.core.requireRow().episode,
        prompt: "p",
        model: "scripted",
        state: "running",
        passes: 0,
        decisions: 0,
        cancelRequested: true,
        createdAt: Date.now(),
        updatedAt: Date.now()
      })
    );
    const name = `finish-${id}`;
    const pending = stub.step(call("wait", { gate: name })).catch(() => null);
    await inside(stub, () => gate(name).started);
    // The alarm's drive while the step waits: it queues behind the step.
    await inside(stub, async (o) => {
      void o.runtime.runs.drive();
      await new Promise((r) => setTimeout(r, 5));
    });
    await abort(stub);
    await pending;
    const woken = fresh(id);
    await inside(woken, (o) => o.runtime.runs.drive());
    expect(
      await inside(woken, (_o, s) => readRun(s.storage.sql, runId)?.state)
    ).toBe("cancelled");
    const log = await events(woken);
    const aborted = log.find((e) => e.type === "step.aborted")!;
    const completed = log.find((e) => e.type === "tree.completed")!;
    // Clients drop an aborted step's events from its first seq on: the
    // run's end, committed on its own, comes after the abort.
    expect(completed.seq).toBeGreaterThan(aborted.seq);
  });

  it("makes no table by reading the log of a session that wrote no event", async () => {
    const { stub } = await newSession();
    const page = ok(await stub.events({ after: 0, limit: 10 }));
    expect(page.events).toEqual([]);
    expect(await inside(stub, (_o, s) => tables(s.storage.sql))).toEqual([
      "session"
    ]);
  });

  it("makes in a fork's source none of the tables it never used", async () => {
    const { stub } = await newSession();
    ok(await stub.reset({}));
    ok(await stub.step(call("bump")));
    const before = await inside(stub, (_o, s) => tables(s.storage.sql));
    const after = await inside(stub, async (o, s) => {
      await beginFork(o.runtime.core, undefined, () => {});
      return tables(s.storage.sql);
    });
    // Only what a fork itself uses: its snapshot's record and its timer.
    expect(after).toEqual([...before, "fork_snapshots", "schedule"].sort());
    expect(before).not.toContain("store_entries");
  });
});
