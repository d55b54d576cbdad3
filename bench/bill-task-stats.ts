/**
 * @module The bill's rows for the server's task statistics: what ending an
 * episode of a dataset task costs with them (the session's commit, then
 * one request to the environment's statistics object and its one upsert)
 * beside the same ending step of a task given as it is, which sends
 * nothing. Calculator episodes, ended by one submit_answer each.
 */

import type { Api, BenchSession } from "./lib/api";
import type { Bill } from "./lib/bill";
import { PRICES } from "./lib/prices";
import { progress } from "./lib/stats";

interface Row {
  operation: string;
  cpuMs: number;
  seconds: number;
  rowsWritten: number;
  rowsRead: number;
  requests: number;
  deferredWritten?: number;
}

type Runner = (
  pgid: number,
  times: number,
  op: (i: number) => Promise<unknown>
) => Promise<{ cpuMs: number; seconds: number }>;

type Billing = (
  api: Api,
  sessions: BenchSession[],
  ops: number
) => Promise<{ rowsWritten: number; rowsRead: number; requests: number }>;

const statsBill = (api: Api): Promise<Bill> =>
  api.post("/bench/stats-bill/calculator", {}) as Promise<Bill>;

export const taskStatsRows = async (
  api: Api,
  pgid: number,
  n: number,
  run: Runner,
  billOf: Billing
): Promise<Row[]> => {
  const ending = async (indexed: boolean): Promise<Row> => {
    const sessions: BenchSession[] = [];
    for (let i = 0; i < n; i++) {
      const s = indexed
        ? await api.createIndexed("calculator", i)
        : await api.create("calculator", {
            question: "What is 2 + 2?",
            answer: 4
          });
      await api.reset(s);
      sessions.push(s);
    }
    // Read (and so cleared) before the steps: only the ending step is billed.
    await billOf(api, sessions, n);
    await statsBill(api);
    const timed = await run(pgid, n, (i) =>
      api.step(sessions[i]!, "submit_answer", { answer: 4 })
    );
    const session = await billOf(api, sessions, n);
    const stats = await statsBill(api);
    const extra = {
      rowsWritten: (stats.rows.rowsWritten + stats.deferred.rowsWritten) / n,
      rowsRead: (stats.rows.rowsRead + stats.deferred.rowsRead) / n,
      requests:
        (stats.requests +
          stats.alarms +
          stats.socketMessages / PRICES.socketMessagesPerRequest) /
        n
    };
    return {
      operation: indexed
        ? "ending step of a dataset task (calculator, task_index): session + task statistics object"
        : "ending step of a task given as it is (calculator): no statistics",
      ...timed,
      rowsWritten: session.rowsWritten + extra.rowsWritten,
      rowsRead: session.rowsRead + extra.rowsRead,
      requests: session.requests + extra.requests
    };
  };
  progress("11 bill: ending steps with and without task statistics");
  return [await ending(false), await ending(true)];
};
