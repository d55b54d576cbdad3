/**
 * @module How scenario 11 (and the rubric costs) measure an operation's
 * bill: each metered object's bill read at /bench/bill/:id, bills summed
 * per operation, stored bytes, and workerd's CPU and the wall time of
 * repeated runs.
 */

import type { Api, BenchSession } from "./lib/api";
import type { Bill } from "./lib/bill";
import { workerdCpuMs } from "./lib/cpu";
import { type Billed, PRICES } from "./lib/prices";
import { median } from "./lib/stats";

/** Repetitions per operation: rows are exact; CPU and wall time are averages. */
export const N = 20;
export const STEPS_PER_EPISODE = 10;

/** Folds before a commit writes the tables: MAX_FOLDS of src/storage/session-row.ts, which needs the Workers types this tsconfig lacks. */
export const MAX_FOLDS = 32;

/**
 * Rows a counter step may write on average over `steps` of one episode:
 * its log row, and a checkpoint's three (the session row, the state
 * value, the messages folded since as one run) each time the folds reach
 * MAX_FOLDS (the reset's counts as the first); the first checkpoint makes
 * the state and transcript tables too (five rows) and the value's key
 * entry.
 */
export const counterRows = (steps: number): number =>
  1 + (3 * Math.max(1, Math.floor((steps + 1) / (MAX_FOLDS + 1))) + 6) / steps;

export interface Measured extends Billed {
  operation: string;
  cpuMs: number;
  deferredWritten?: number;
  note?: string;
}

export const readBill = (api: Api, s: BenchSession): Promise<Bill> =>
  api.post(`/bench/bill/${s.id}`, {}) as Promise<Bill>;

/** The median database size of `sessions`: stored bytes, billed per GB-month. */
export const storedBytes = async (
  api: Api,
  sessions: BenchSession[]
): Promise<number> => {
  const sizes: number[] = [];
  for (const s of sessions)
    sizes.push(
      ((await api.post(`/bench/storage/${s.id}`, {})) as { bytes: number })
        .bytes
    );
  return median(sizes);
};

/** Stored bytes of an idle session, at two moments of its life. */
export interface Stored {
  created: number;
  afterEpisode: number;
}

/** Runs `op` `times` times: workerd CPU per run (the whole process) and the median wall time. */
export const run = async (
  pgid: number,
  times: number,
  op: (i: number) => Promise<unknown>
): Promise<{ cpuMs: number; seconds: number }> => {
  const walls: number[] = [];
  const cpu0 = workerdCpuMs(pgid) ?? Number.NaN;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await op(i);
    walls.push(performance.now() - t);
  }
  const cpu = ((workerdCpuMs(pgid) ?? Number.NaN) - cpu0) / times;
  return { cpuMs: cpu, seconds: median(walls) / 1000 };
};

/** The bills of `sessions`, summed and divided by `ops`. */
export const billOf = async (
  api: Api,
  sessions: BenchSession[],
  ops: number
): Promise<Omit<Billed, "seconds"> & { deferredWritten: number }> => {
  let w = 0;
  let r = 0;
  let q = 0;
  let d = 0;
  for (const s of sessions) {
    const b = await readBill(api, s);
    w += b.rows.rowsWritten + b.deferred.rowsWritten;
    r += b.rows.rowsRead + b.deferred.rowsRead;
    q +=
      b.requests +
      b.alarms +
      b.socketMessages / PRICES.socketMessagesPerRequest;
    d += b.deferred.rowsWritten;
  }
  return {
    rowsWritten: w / ops,
    rowsRead: r / ops,
    requests: q / ops,
    deferredWritten: d / ops
  };
};
