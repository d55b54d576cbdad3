// The tasks table (MCP's tool calls run as tasks, storage/task-rows.ts) in
// a real session object: pages and the next task to run are found by the
// key, whose order is creation order, and read only the rows they need.

import { describe, expect, it } from "vitest";
import { newTaskId } from "../../src/layers/mcp/task-status";
import { RowMeter } from "../../src/storage/row-meter";
import {
  insertTask,
  listTasks,
  nextWorking,
  type TaskRow
} from "../../src/storage/task-rows";
import { inside, newResetSession } from "./session-helpers";

const KEPT = 40;

/** KEPT tasks a millisecond apart, the first `expired` past their TTL, only the one at `working` still working. */
const tasks = (now: number, working: number, expired: number): TaskRow[] =>
  Array.from({ length: KEPT }, (_, i) => ({
    taskId: newTaskId(now - KEPT + i, i),
    tool: "increment",
    arguments: { i },
    status: i === working ? "working" : "completed",
    redrives: 0,
    createdAt: now - KEPT + i,
    updatedAt: now,
    expiresAt: i < expired ? now - 1 : now + 60_000
  }));

describe("the tasks table", () => {
  it("pages oldest first by the key, reading a page's rows, and stops at the oldest working task", async () => {
    const { stub } = await newResetSession("counter");
    const got = await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      // Ids minted in a shuffled order: the key orders them, not insertion.
      const all = tasks(now, 12, 2);
      for (const i of [...all.keys()].sort(
        (a, b) => ((a * 7) % KEPT) - ((b * 7) % KEPT)
      ))
        insertTask(sql, all[i]!);
      // Once per object, a look at sqlite_schema finds the table: not counted.
      listTasks(sql, now, 1);
      const meter = new RowMeter(state.storage);
      try {
        const first = listTasks(sql, now, 10);
        const firstRead = meter.take().rowsRead;
        const second = listTasks(sql, now, 10, {
          taskId: first.at(-1)!.taskId
        });
        const secondRead = meter.take().rowsRead;
        const next = nextWorking(sql, now, new Set());
        const nextRead = meter.take().rowsRead;
        const none = nextWorking(sql, now, new Set([all[12]!.taskId]));
        return {
          ids: all.map((t) => t.taskId),
          first: first.map((t) => t.taskId),
          second: second.map((t) => t.taskId),
          next: next?.taskId,
          none,
          firstRead,
          secondRead,
          nextRead
        };
      } finally {
        meter.stop();
      }
    });
    // Oldest first, the two expired left out, the second page after the first.
    expect(got.first).toEqual(got.ids.slice(2, 12));
    expect(got.second).toEqual(got.ids.slice(12, 22));
    expect(got.next).toBe(got.ids[12]);
    expect(got.none).toBeUndefined();
    // A page reads its rows (and the expired ones it steps over), not all 40.
    expect(got.firstRead).toBeLessThanOrEqual(12);
    expect(got.secondRead).toBeLessThanOrEqual(11);
    // The walk stops at the oldest working task, the 13th of 40 (and reads
    // one more row, measured, for its skip list).
    expect(got.nextRead).toBeLessThanOrEqual(14);
  });
});
