// The event log keeps a commit's events in one row (storage/event-log.ts):
// every event keeps its seq and a reader can start after any of them; a
// slow mutation still streams before it commits, behind its in-flight
// mark; rows written before runs (one event each) read alongside; a run
// too large for one row is cut into several; a failed write keeps its
// events. At its edges: retention never leaves seqs to be handed out
// again, a run's end never lands inside a step that may abort, and reads
// and forks make no table a session never used.
import { describe, expect, it } from "vitest";
import { ReadBudget } from "../../src/protocol/read-budget";
import { beginFork } from "../../src/session/fork-source";
import { EventLog } from "../../src/storage/event-log";
import { readRun, writeRun } from "../../src/storage/run-rows";
import { readSessionRow } from "../../src/storage/session-row";
import { gate } from "../fixtures/environments";
import {
  abort,
  events,
  fresh,
  inside,
  newResetSession,
  newSession,
  ok,
  toolAction
} from "./session-helpers";

type Sql = SqlStorage;

const logRows = (sql: Sql) =>
  sql
    .exec<{ seq: number; first: number | null }>(
      "SELECT seq, first FROM events ORDER BY seq"
    )
    .toArray();

const seqs = (log: EventLog, after: number, limit = 1000) =>
  log
    .page(after, limit, new ReadBudget(4 * 1024 * 1024))
    .map((e) => (JSON.parse(e.text) as { seq: number }).seq);

describe("the event log's runs", () => {
  it("writes a step's events as one row, and resumes after every one of them", async () => {
    const { stub } = await newResetSession();
    const before = await inside(stub, (_o, s) => logRows(s.storage.sql));
    ok(await stub.step({ action: toolAction("bump") }));
    ok(await stub.step({ action: toolAction("note", { text: "two" }) }));
    const rows = await inside(stub, (_o, s) => logRows(s.storage.sql));
    // One more row per step, each holding several events.
    expect(rows).toHaveLength(before.length + 2);
    const stepRow = rows.at(-1)!;
    expect(stepRow.first).not.toBeNull();
    expect(stepRow.seq - stepRow.first!).toBeGreaterThan(2);
    const all = (await events(stub)).map((e) => e.seq);
    // Dense seqs, each event its own.
    expect(all).toEqual(all.map((_, i) => i + 1));
    // Every event boundary is a resume point, over the RPC read and inside.
    for (const after of [0, ...all]) {
      const page = ok(await stub.events({ after, limit: 1000 }));
      expect(page.events.map((e) => e.seq)).toEqual(
        all.filter((s) => s > after)
      );
      const limited = ok(await stub.events({ after, limit: 2 }));
      expect(limited.events.map((e) => e.seq)).toEqual(
        all.filter((s) => s > after).slice(0, 2)
      );
    }
  });

  it("streams a slow step's events before it commits, behind its in-flight mark", async () => {
    const { id, stub } = await newResetSession();
    // Nothing of a fast step is left in flight, and no mark was written.
    ok(await stub.step({ action: toolAction("bump") }));
    const mark = () =>
      inside(stub, (_o, s) => readSessionRow(s.storage.sql)?.inflight ?? null);
    expect(await mark()).toBeNull();
    const name = `slow-${id}`;
    const last = (await events(stub)).at(-1)!.seq;
    const pending = stub.step({ action: toolAction("wait", { gate: name }) });
    await inside(stub, () => gate(name).started);
    // The turn yielded while the tool waits: its events are durable and readable.
    const seen = await inside(stub, async (o) => {
      await new Promise((r) => setTimeout(r, 5));
      return o.runtime.shared.events
        .after(last, 1000)
        .map((e) => e.type as string);
    });
    expect(seen).toContain("tool.started");
    expect(seen).not.toContain("step");
    expect(await mark()).toMatchObject({ kind: "step", step: 2 });
    await inside(stub, () => gate(name).open());
    ok(await pending);
    expect(await mark()).toBeNull();
    const types = (await events(stub)).map((e) => e.type);
    expect(types.at(-1)).toBe("step");
    expect(types).not.toContain("step.aborted");
  });

  it("reads rows of one event (as written before runs) and runs alike", async () => {
    const { stub } = await newSession();
    const read = await inside(stub, (_o, s) => {
      const sql = s.storage.sql;
      const event = (seq: number) =>
        JSON.stringify({ seq, type: "old", episode: 0, at: "x" });
      for (const seq of [1, 2, 3])
        sql.exec(
          "INSERT INTO events (seq, episode, type, data, bytes) VALUES (?, 0, 'old', ?, 0)",
          seq,
          event(seq)
        );
      const log = new EventLog(sql);
      for (let i = 0; i < 4; i++) log.append(0, "new", { i });
      log.flush();
      log.append(0, "alone", {});
      log.flush();
      return {
        rows: logRows(sql),
        from: [0, 1, 2, 3, 4, 5, 6, 7, 8].map((after) => seqs(log, after)),
        oldest: log.oldestSeq,
        last: log.lastSeq
      };
    });
    expect(read.rows).toEqual([
      { seq: 1, first: null },
      { seq: 2, first: null },
      { seq: 3, first: null },
      { seq: 7, first: 4 },
      { seq: 8, first: null }
    ]);
    for (let after = 0; after <= 8; after++) {
      expect(read.from[after]).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8].filter((s) => s > after)
      );
    }
    expect(read.oldest).toBe(1);
    expect(read.last).toBe(8);
  });

  it("cuts a run too large for one row into rows that each fit", async () => {
    const { stub } = await newSession();
    const out = await inside(stub, (_o, s) => {
      const sql = s.storage.sql;
      const log = new EventLog(sql);
      // Five events of 700 KB: no two and a half fit a 1.9 MB row.
      for (let i = 0; i < 5; i++)
        log.append(0, "big", { fill: "x".repeat(700_000) });
      log.flush();
      const rows = sql
        .exec<{ seq: number; first: number | null; bytes: number }>(
          "SELECT seq, first, octet_length(data) AS bytes FROM events ORDER BY seq"
        )
        .toArray();
      return { rows, from3: seqs(log, 3), total: log.totalBytes };
    });
    expect(out.rows.map((r) => [r.first, r.seq])).toEqual([
      [1, 2],
      [3, 4],
      [null, 5]
    ]);
    for (const row of out.rows) expect(row.bytes).toBeLessThan(1_900_000);
    expect(out.from3).toEqual([4, 5]);
    expect(out.total).toBe(out.rows.reduce((n, r) => n + r.bytes, 0));
  });

  it("marks aborted, after a restart, the events a slow step published before the object died", async () => {
    const { id, stub } = await newResetSession();
    const name = `died-${id}`;
    const pending = stub
      .step({ action: toolAction("wait", { gate: name }) })
      .catch(() => null);
    await inside(stub, () => gate(name).started);
    await inside(stub, () => new Promise((r) => setTimeout(r, 5)));
    await abort(stub);
    await pending;
    const log = await events(fresh(id));
    const aborted = log.at(-1)!;
    expect(aborted.type).toBe("step.aborted");
    const streamed = log.filter((e) => e.seq >= (aborted.first_seq as number));
    expect(streamed.map((e) => e.type)).toContain("tool.started");
    // The mark is gone once the restart closed the step.
    expect(
      await inside(
        fresh(id),
        (_o, s) => readSessionRow(s.storage.sql)?.inflight
      )
    ).toBeNull();
  });

  it("reads the session row exactly after a restart, folds and checkpoints alike, however far retention trimmed", async () => {
    const { id, stub } = await newResetSession();
    await inside(stub, (o) => o.runtime.setLimits({ eventsRetained: 30 }));
    const table = () =>
      inside(stub, (_o, s) =>
        s.storage.sql
          .exec<{ steps: number; as_of: number | null }>(
            "SELECT steps, as_of FROM session"
          )
          .one()
      );
    // Steps until retention reached the reset's checkpoint and the table
    // was written though no step writes it on its own; one more then folds.
    const reset = (await table()).as_of;
    let steps = 0;
    do {
      ok(await stub.step({ action: toolAction("bump") }));
      steps++;
    } while ((await table()).as_of === reset && steps < 50);
    ok(await stub.step({ action: toolAction("bump") }));
    steps++;
    expect(steps).toBeGreaterThan(2);
    expect(steps).toBeLessThan(50);
    expect((await table()).steps).toBe(steps - 1);
    const before = ok(await stub.status());
    expect(before.steps).toBe(steps);
    await abort(stub);
    const after = ok(await fresh(id).status());
    expect(after).toMatchObject({
      steps,
      episode: before.episode,
      reward: before.reward,
      return: before.return
    });
    ok(await fresh(id).step({ action: toolAction("bump") }));
    expect(ok(await fresh(id).status()).steps).toBe(steps + 1);
  });
});

const tables = (sql: Sql) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name"
    )
    .toArray()
    .map((r) => r.name);

describe("the event log's edges", () => {
  it("keeps the newest commit however small the byte budget, so a restart never reuses a seq", async () => {
    const { id, stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("bump") }));
    await inside(stub, (o) =>
      o.runtime.setLimits({ eventsRetainedBytes: 4096 })
    );
    // One step whose events pass the budget together (each alone would not).
    ok(
      await stub.step({
        action: toolAction("note", { text: "x".repeat(1500) })
      })
    );
    const seen = await inside(stub, (o) => o.runtime.shared.events.lastSeq);
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
    ok(await again.step({ action: toolAction("bump") }));
    const after = (await events(again)).map((e) => e.seq);
    expect(Math.min(...after.filter((s) => s > seen))).toBe(seen + 1);
    expect(after.filter((s) => s <= seen)).toEqual(
      after.slice(0, after.indexOf(seen) + 1)
    );
  });

  it("ends a cancelled run after the step in flight, outside what its abort covers", async () => {
    const { id, stub } = await newResetSession();
    const runId = `run-${crypto.randomUUID()}`;
    // A run the client asked to cancel (a cancel only raises the flag).
    await inside(stub, (o, s) =>
      writeRun(s.storage.sql, {
        runId,
        episode: o.runtime.shared.requireRow().episode,
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
    const pending = stub
      .step({ action: toolAction("wait", { gate: name }) })
      .catch(() => null);
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
    const { stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("bump") }));
    const before = await inside(stub, (_o, s) => tables(s.storage.sql));
    const after = await inside(stub, async (o, s) => {
      await beginFork(o.runtime.shared, undefined, () => {});
      return tables(s.storage.sql);
    });
    // Only what a fork itself uses: its snapshot's record and its timer,
    // and the tables the copy gets what the step folded from (the state
    // value and the messages it set).
    expect(before).not.toContain("state");
    expect(after).toEqual(
      [
        ...before,
        "fork_snapshots",
        "schedule",
        "state",
        "transcript_runs"
      ].sort()
    );
    expect(before).not.toContain("store_entries");
  });
});

describe("a failed write of the log", () => {
  it("keeps the events appended, with their seqs, for the next write", async () => {
    const { stub } = await newSession();
    const out = await inside(stub, (_o, s) => {
      const sql = s.storage.sql;
      let refuse = true;
      // The log's own statements, with its INSERT refused once.
      const flaky = {
        exec: (query: string, ...bindings: SqlStorageValue[]) => {
          if (refuse && query.startsWith("INSERT")) {
            refuse = false;
            throw new Error("disk full");
          }
          return sql.exec(query, ...bindings);
        }
      } as unknown as Sql;
      const log = new EventLog(flaky);
      log.append(0, "a", {});
      log.append(0, "b", {});
      const failed = (() => {
        try {
          log.flush();
          return "wrote";
        } catch (error) {
          return String(error);
        }
      })();
      const after = { pending: log.pending, last: log.lastSeq };
      const written = log.flush().map((e) => e.seq);
      return { failed, after, written, read: seqs(log, 0) };
    });
    expect(out.failed).toContain("disk full");
    expect(out.after).toEqual({ pending: true, last: 0 });
    expect(out.written).toEqual([1, 2]);
    expect(out.read).toEqual([1, 2]);
  });
});
