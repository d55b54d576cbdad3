// The row meter (storage/row-meter.ts) inside a real session object: what it
// counts for create, reset and a counter step, checked against what SQLite
// itself reports changed (total_changes(), the tables' row counts and their
// indexes), and that an object without a meter is left untouched.

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { SessionObject } from "../../src/session/session-object";
import { type RowCount, RowMeter } from "../../src/storage/row-meter";
import { MAX_FOLDS, readSessionRow } from "../../src/storage/session-row";
import { foldsOf, readFoldedState } from "../../src/storage/state-folds";
import { ROOST_TABLE_NAMES } from "../../src/storage/tables";

const ROOST_TABLES = [...ROOST_TABLE_NAMES];

import { ok, toolAction } from "./session-helpers";

type Sql = SqlStorage;

/** Rows SQLite changed on this connection so far (inserts, updates, deletes; no index entries). */
const totalChanges = (sql: Sql): number =>
  sql.exec<{ n: number }>("SELECT total_changes() AS n").one().n;

/** Each of Roost's tables with its row count; absent before `create`. */
const rowCounts = (sql: Sql): Map<string, number> => {
  const present = new Set(
    sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_schema WHERE type = 'table'"
      )
      .toArray()
      .map((r) => r.name)
  );
  const counts = new Map<string, number>();
  for (const table of ROOST_TABLES) {
    if (!present.has(table)) continue;
    counts.set(
      table,
      sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n
    );
  }
  return counts;
};

/** Indexes per table, implicit ones (a PRIMARY KEY or UNIQUE on a rowid table) included. */
const indexCounts = (sql: Sql): Map<string, number> =>
  new Map(
    sql
      .exec<{ t: string; n: number }>(
        "SELECT tbl_name AS t, count(*) AS n FROM sqlite_schema WHERE type = 'index' GROUP BY tbl_name"
      )
      .toArray()
      .map((r) => [r.t, r.n])
  );

/** Tables and indexes in `sqlite_schema`: each is a row a CREATE writes. */
const schemaCounts = (sql: Sql): { tables: number; indexes: number } =>
  sql
    .exec<{ tables: number; indexes: number }>(
      // The platform's own tables (the alarm's) are billed as the alarm.
      "SELECT sum(type = 'table') AS tables, sum(type = 'index') AS indexes FROM sqlite_schema WHERE tbl_name NOT LIKE '\\_cf\\_%' ESCAPE '\\'"
    )
    .one();

interface Look {
  counts: Map<string, number>;
  changes: number;
  schema: { tables: number; indexes: number };
}

/**
 * What SQLite bills for a mutation that only inserts and updates: a new
 * row is written once into its table and once into each of its indexes;
 * every other changed row (an update of unindexed columns) is one write.
 * A table made on first use writes its `sqlite_schema` row and then sets
 * its root page there (two), an index one.
 */
const expectedWrites = (sql: Sql, before: Look, after: Look): number => {
  const indexes = indexCounts(sql);
  let inserted = 0;
  let written =
    2 * (after.schema.tables - before.schema.tables) +
    (after.schema.indexes - before.schema.indexes);
  for (const [table, n] of after.counts) {
    const added = n - (before.counts.get(table) ?? 0);
    // A delete would need its own rule; none of these operations deletes.
    expect(added, `rows added to ${table}`).toBeGreaterThanOrEqual(0);
    inserted += added;
    written += added * (1 + (indexes.get(table) ?? 0));
  }
  const updated = after.changes - before.changes - inserted;
  expect(updated).toBeGreaterThanOrEqual(0);
  return written + updated;
};

/** Runs `fn` in a fresh session object with a meter installed on its storage. */
const metered = <T>(
  fn: (
    obj: SessionObject,
    sql: Sql,
    measure: (
      op: () => Promise<unknown>
    ) => Promise<{ count: RowCount; expected: number }>,
    sessionId: string
  ) => Promise<T>
): Promise<T> => {
  const stub = env.SESSIONS.get(
    env.SESSIONS.newUniqueId()
  ) as unknown as DurableObjectStub<SessionObject>;
  return runInDurableObject(stub, async (obj, state) => {
    const sql = state.storage.sql;
    const meter = new RowMeter(state.storage);
    const look = (): Look => ({
      counts: rowCounts(sql),
      changes: totalChanges(sql),
      schema: schemaCounts(sql)
    });
    const measure = async (op: () => Promise<unknown>) => {
      const before = look();
      meter.take(); // the look's own reads
      await op();
      const count = meter.take();
      const expected = expectedWrites(sql, before, look());
      meter.take();
      return { count, expected };
    };
    try {
      return await fn(obj, sql, measure, state.id.toString());
    } finally {
      meter.stop();
    }
  });
};

describe("RowMeter", () => {
  it("counts the rows a counter step and a reset write, as SQLite changed them", async () => {
    const { reset, step, second } = await metered(
      async (obj, _sql, m, sessionId) => {
        ok(
          await obj.op(
            "create",
            {
              sessionId,
              environment: "counter",
              task: { target: 3 }
            },
            SERVER_GRANT
          )
        );
        const reset = await m(async () =>
          ok(await obj.op("reset", {}, SERVER_GRANT))
        );
        const step = await m(async () =>
          ok(await obj.op("step", { action: toolAction("incr") }, SERVER_GRANT))
        );
        const second = await m(async () =>
          ok(await obj.op("step", { action: toolAction("incr") }, SERVER_GRANT))
        );
        return { reset, step, second };
      }
    );
    expect(reset.count.rowsWritten).toBe(reset.expected);
    // The log's table and its row, and the session row: the reset's state
    // values and messages ride in its fold, and reading the tables they
    // would be in makes none.
    expect(reset.count.rowsWritten).toBe(4);
    expect(step.count.rowsWritten).toBe(step.expected);
    expect(second.count.rowsWritten).toBe(second.expected);
    // The step's events as one row, carrying the session row's step
    // fields, the state value and its two messages: one, the first step
    // too (its new state key rides in the fold as well).
    expect(step.count.rowsWritten).toBe(1);
    expect(second.count.rowsWritten).toBe(1);
    expect(step.count.rowsRead).toBeGreaterThan(0);
    expect(step.count.alarmsSet).toBe(0);
    // A step after the first reads nothing it knows already: the state
    // value and the transcript's count are kept by the session object
    // (storage/committed-cache.ts), so its one statement is its write.
    expect(second.count.statements).toBe(1);
  });

  it("writes one row for a multi-agent step, and for one with a turn the environment plays in it", async () => {
    const read: Record<string, number[]> = {};
    for (const environment of ["tictactoe", "tictactoe-bot"]) {
      const steps = await metered(async (obj, _sql, m, sessionId) => {
        ok(
          await obj.op(
            "create",
            { sessionId, environment, task: undefined },
            SERVER_GRANT
          )
        );
        ok(await obj.op("reset", {}, SERVER_GRANT));
        const out: { count: RowCount; expected: number }[] = [];
        for (const cell of [5, 9]) {
          const action = toolAction("mark", { cell });
          out.push(
            await m(async () =>
              ok(await obj.op("step", { action }, SERVER_GRANT))
            )
          );
        }
        return out;
      });
      for (const step of steps) {
        expect(step.count.rowsWritten).toBe(step.expected);
        // The board, where the agents stand and the messages of every
        // turn in it ride in the step's fold, as a one-agent step's do.
        expect(step.count.rowsWritten, environment).toBe(1);
      }
      read[environment] = steps.map((s) => s.count.rowsRead);
    }
    // A scripted play that never looks at the transcript reads none of it.
    const [selfPlay, bot] = [read.tictactoe!, read["tictactoe-bot"]!];
    for (const [i, rows] of bot.entries()) {
      expect(rows, `step ${i + 1}`).toBeLessThanOrEqual(selfPlay[i]!);
    }
  });

  it(`writes the tables after ${MAX_FOLDS} folded steps, so a cold read of state reads ${MAX_FOLDS} folds at most`, async () => {
    const { written, expected, coldRead, folded } = await metered(
      async (obj, sql, m, sessionId) => {
        ok(
          await obj.op(
            "create",
            { sessionId, environment: "counter", task: { target: 1000 } },
            SERVER_GRANT
          )
        );
        ok(await obj.op("reset", {}, SERVER_GRANT));
        const step = () =>
          m(async () =>
            ok(
              await obj.op("step", { action: toolAction("incr") }, SERVER_GRANT)
            )
          );
        const steps: Awaited<ReturnType<typeof step>>[] = [];
        for (let i = 0; i < 2 * MAX_FOLDS; i++) steps.push(await step());
        // Folds since the last checkpoint are at their bound now: what a
        // cold read of the value reads of the log.
        const folds = foldsOf(readSessionRow(sql)!);
        let folded: Map<string, string> | undefined;
        const coldRead = await m(async () => {
          folded = readFoldedState(sql, folds);
        });
        steps.push(await step());
        return {
          written: steps.map((s) => s.count.rowsWritten),
          expected: steps.map((s) => s.expected),
          coldRead: { ...coldRead.count, folds: folds.count },
          folded
        };
      }
    );
    expect(written).toEqual(expected);
    // The reset's fold is the episode's first, so the commit after
    // MAX_FOLDS - 1 steps writes the tables: the session row, the state
    // value and every message since the reset as one run, beside the
    // step's events. The first time it makes the state and transcript
    // tables too (five rows) and the value's key entry; the next folds
    // count from it.
    const ones = (n: number) => Array<number>(n).fill(1);
    expect(written).toEqual([
      ...ones(MAX_FOLDS - 1),
      10,
      ...ones(MAX_FOLDS),
      4
    ]);
    expect(coldRead.folds).toBe(MAX_FOLDS);
    expect(coldRead.rowsRead).toBe(MAX_FOLDS);
    expect(coldRead.statements).toBe(1);
    expect(folded).toEqual(new Map([["count", String(2 * MAX_FOLDS)]]));
  });

  it("writes one more row per step and per reset for an environment that registers rubrics for re-scoring, and none for one that does not", async () => {
    const run = (environment: string) =>
      metered(async (obj, sql, m, sessionId) => {
        ok(
          await obj.op(
            "create",
            { sessionId, environment, task: undefined },
            SERVER_GRANT
          )
        );
        const recorded = () => rowCounts(sql).get("rescore_log") ?? 0;
        const guess = (n: number) =>
          m(async () =>
            ok(
              await obj.op(
                "step",
                { action: toolAction("guess", { n }) },
                SERVER_GRANT
              )
            )
          );
        ok(await obj.op("reset", {}, SERVER_GRANT));
        const afterReset = recorded();
        // Tables made on first use are paid once; what follows is steady.
        await guess(1);
        // `graded` ends here, deleting a hidden key (which this count's
        // rule does not cover): only `regraded`'s second step is measured.
        const second = environment === "regraded" ? await guess(2) : undefined;
        if (second === undefined)
          ok(
            await obj.op(
              "step",
              { action: toolAction("guess", { n: 2 }) },
              SERVER_GRANT
            )
          );
        const reset = await m(async () =>
          ok(await obj.op("reset", {}, SERVER_GRANT))
        );
        return { reset, second, afterReset, recorded: recorded() };
      });
    // `graded` has rubrics and registers none; `regraded` registers them
    // (and its tool writes the hidden store each step, recorded in the same row).
    const plain = await run("graded");
    const registered = await run("regraded");
    for (const r of [plain, registered])
      expect(r.reset.count.rowsWritten).toBe(r.reset.expected);
    expect(registered.second!.count.rowsWritten).toBe(
      registered.second!.expected
    );
    // A reset records the task (and the hidden values reset set), a step
    // its place (and its hidden changes): one row each, in the same table.
    expect(plain.recorded).toBe(0);
    expect(registered.afterReset).toBe(1);
    expect(registered.recorded).toBe(4);
  });

  it("counts create's one table, its row and the alarm it sets: four rows", async () => {
    const created = await metered(async (obj, sql, m, sessionId) => {
      const c = await m(async () =>
        ok(
          await obj.op(
            "create",
            {
              sessionId,
              environment: "counter",
              task: undefined
            },
            SERVER_GRANT
          )
        )
      );
      const made = sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name"
        )
        .toArray()
        .map((r) => r.name);
      return { ...c, made };
    });
    // Only the session's own table (beside the platform's own, which holds
    // the alarm): the rest are made on first use.
    expect(created.made).toEqual(["session"]);
    expect(created.count.alarmsSet).toBe(1);
    // SQLite counts the alarm's row among its changes (the platform keeps
    // it in a table of its own), so what it saw equals what is billed:
    // the table (its schema row, then its root page), the session's row
    // and the alarm.
    expect(created.count.rowsWritten).toBe(created.expected);
    expect(created.count.rowsWritten).toBe(4);
    expect(created.count.rowsRead).toBeGreaterThan(0);
  });

  it("reads each cursor after it was consumed, and puts storage back on stop", async () => {
    const stub = env.SESSIONS.get(
      env.SESSIONS.newUniqueId()
    ) as unknown as DurableObjectStub<SessionObject>;
    await runInDurableObject(stub, async (obj, state) => {
      const sql = state.storage.sql;
      // Without a meter the object's storage keeps only the wrapper that
      // makes tables on first use: metering off costs nothing.
      expect(obj.meter).toBeUndefined();
      const own = sql.exec;
      const meter = new RowMeter(state.storage);
      expect(sql.exec).not.toBe(own);
      sql.exec("CREATE TABLE t (v INTEGER)");
      sql.exec("INSERT INTO t (v) VALUES (1), (2), (3)");
      meter.take();
      const cursor = sql.exec("SELECT v FROM t");
      cursor.next(); // one row of three, so far
      const all = cursor.toArray();
      expect(all).toHaveLength(2);
      expect(meter.take()).toEqual({
        rowsRead: 3,
        rowsWritten: 0,
        statements: 1,
        alarmsSet: 0
      });
      meter.stop();
      expect(sql.exec).toBe(own);
      sql.exec("INSERT INTO t (v) VALUES (4)");
      expect(meter.take().statements).toBe(0);
    });
  });
});
