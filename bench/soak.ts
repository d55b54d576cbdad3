/**
 * @module Scenario 16, the soak: N counter sessions (256 by default)
 * playing episodes without a pause for a set time (10 minutes by default;
 * BENCH_SOAK_SESSIONS and BENCH_SOAK_MINUTES change them), on a metered
 * server with an inspector port. Each minute: steps, errors by kind, p50
 * and p99 step latency (drift), workerd's resident set and V8 heap after a
 * full collection (growth), and rows written per step (resets included).
 * At the end, the stored bytes of a session. What a trainer's server does
 * over hours, in minutes.
 */

import { freePort } from "../scripts/free-port.mjs";
import { Api, type BenchSession, HttpError, stepBody } from "./lib/api";
import type { Bill } from "./lib/bill";
import { devtools, workerTarget } from "./lib/devtools";
import { MemoryProbe, residency, runtimeWorkerd } from "./lib/memory";
import { pool } from "./lib/pool";
import { startServer } from "./lib/server";
import { percentile, progress } from "./lib/stats";
import { bytes, ms, type Row, times } from "./lib/table";

const SESSIONS = Number(process.env.BENCH_SOAK_SESSIONS ?? 256);
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const EPISODE_STEPS = 10;
const NAME = "16 Soak";

interface Minute {
  steps: number;
  latencies: number[];
  errors: Map<string, number>;
  rss: number;
  heap: number;
  rowsWritten: number;
  /** Median database size of a sample of sessions (free pages included). */
  stored: number;
}

const kindOf = (error: unknown): string =>
  error instanceof HttpError
    ? `HTTP ${error.status}`
    : `network: ${error instanceof Error ? error.message : String(error)}`;

export const soakScenario = async (root: string): Promise<Row[]> => {
  const inspector = await freePort();
  progress(
    `${NAME}: ${SESSIONS} sessions for ${MINUTES} min (starting a metered server)`
  );
  const server = await startServer(root, [
    "--var",
    "ROOST_METER:1",
    "--inspector-port",
    String(inspector)
  ]);
  const dt = await devtools(await workerTarget(inspector));
  try {
    const api = new Api(server.baseUrl);
    const pid = runtimeWorkerd(server.pgid, Number(new URL(api.baseUrl).port));
    const probe = new MemoryProbe(pid, dt, () => api.health());
    const sessions: BenchSession[] = [];
    await pool(
      Array.from({ length: SESSIONS }, (_, i) => i),
      32,
      async () => {
        sessions.push(await api.create("counter"));
      }
    );
    const minutes: Minute[] = [];
    const fresh = (): Minute => ({
      steps: 0,
      latencies: [],
      errors: new Map(),
      rss: 0,
      heap: 0,
      rowsWritten: 0,
      stored: 0
    });
    let now = fresh();
    const started = performance.now();
    const until = started + MINUTES * 60_000;
    const fail = (error: unknown) =>
      now.errors.set(kindOf(error), (now.errors.get(kindOf(error)) ?? 0) + 1);
    const play = async (s: BenchSession) => {
      while (performance.now() < until) {
        try {
          await api.reset(s);
          for (let n = 0; n < EPISODE_STEPS; n++) {
            const t0 = performance.now();
            await api.post(
              `/v1/sessions/${s.id}/step`,
              stepBody("incr"),
              s.token
            );
            now.latencies.push(performance.now() - t0);
            now.steps += 1;
          }
        } catch (error) {
          fail(error);
        }
      }
    };
    const bills = async () => {
      let written = 0;
      await pool(sessions, 32, async (s) => {
        const bill = (await api.post(`/bench/bill/${s.id}`, {})) as Bill;
        written += bill.rows.rowsWritten + bill.deferred.rowsWritten;
      });
      return written;
    };
    const storedNow = async () => {
      const sizes: number[] = [];
      for (const s of sessions.slice(0, 8))
        sizes.push(
          ((await api.post(`/bench/storage/${s.id}`, {})) as { bytes: number })
            .bytes
        );
      return percentile(sizes, 50);
    };
    await bills(); // from zero: creation is not the soak's
    const games = sessions.map(play);
    for (let m = 1; m <= MINUTES; m++) {
      await new Promise((r) =>
        setTimeout(r, Math.max(0, started + m * 60_000 - performance.now()))
      );
      const ended = now;
      now = fresh();
      ended.rowsWritten = await bills();
      await probe.collectGarbage();
      ended.heap = await probe.heap();
      ended.rss = residency(pid).rss;
      ended.stored = await storedNow();
      minutes.push(ended);
      progress(
        `${NAME}: minute ${m}: ${ended.steps} steps, p99 ${ms(percentile(ended.latencies, 99))}, RSS ${bytes(ended.rss)}, heap ${bytes(ended.heap)}, stored ${bytes(ended.stored)}, ${(ended.rowsWritten / Math.max(1, ended.steps)).toFixed(2)} rows/step, ${[...ended.errors.values()].reduce((a, b) => a + b, 0)} errors`
      );
    }
    await Promise.all(games);
    return report(minutes);
  } finally {
    dt.close();
    await server.stop();
  }
};

const report = (minutes: Minute[]): Row[] => {
  const rows: Row[] = minutes.map((m, i) => ({
    scenario: NAME,
    measure: `minute ${i + 1}: steps, step p50/p99; workerd RSS / heap, stored bytes per session; rows written per step`,
    roost: `${m.steps} steps, ${ms(percentile(m.latencies, 50))} / ${ms(percentile(m.latencies, 99))}`,
    reference: `${bytes(m.rss)} / ${bytes(m.heap)}, ${bytes(m.stored)}`,
    ratio: (m.rowsWritten / Math.max(1, m.steps)).toFixed(2),
    target: "—",
    met: null
  }));
  const errors = new Map<string, number>();
  for (const m of minutes)
    for (const [kind, n] of m.errors)
      errors.set(kind, (errors.get(kind) ?? 0) + n);
  const first = minutes[0]!;
  const last = minutes.at(-1)!;
  const middle = minutes[Math.floor((minutes.length - 1) / 2)]!;
  const drift =
    percentile(last.latencies, 99) / percentile(first.latencies, 99);
  // Levels off: the second half grows less than a tenth of the first's size.
  const lateGrowth = last.rss - middle.rss;
  // Minute 1 holds every session's first reset (its one-time rows):
  // constant means from minute 2 on, with minute 1 shown beside.
  const perStep = minutes.map((m) => m.rowsWritten / Math.max(1, m.steps));
  const settled = perStep.length > 1 ? perStep.slice(1) : perStep;
  const spread = Math.max(...settled) / Math.min(...settled);
  const steps = minutes.reduce((s, m) => s + m.steps, 0);
  rows.push(
    {
      scenario: NAME,
      measure: `errors over ${steps} steps of ${SESSIONS} sessions in ${minutes.length} min`,
      roost:
        errors.size === 0
          ? "none"
          : [...errors].map(([k, n]) => `${k}: ${n}`).join("; "),
      reference: "—",
      ratio: String([...errors.values()].reduce((a, b) => a + b, 0)),
      target: "0",
      met: errors.size === 0
    },
    {
      scenario: NAME,
      measure: "step p99, last minute over first (drift)",
      roost: ms(percentile(last.latencies, 99)),
      reference: ms(percentile(first.latencies, 99)),
      ratio: times(drift),
      target: "≤ 1.2×",
      met: drift <= 1.2
    },
    {
      scenario: NAME,
      measure: "workerd RSS growth over the second half (levels off)",
      roost: bytes(Math.max(0, lateGrowth)),
      reference: `${bytes(middle.rss)} at minute ${minutes.indexOf(middle) + 1}`,
      ratio: times(last.rss / middle.rss),
      target: "≤ 1.10×",
      met: last.rss <= middle.rss * 1.1
    },
    {
      scenario: NAME,
      measure: "V8 heap after a full collection, last minute over first",
      roost: bytes(last.heap),
      reference: bytes(first.heap),
      ratio: times(last.heap / first.heap),
      target: "—",
      met: null
    },
    {
      scenario: NAME,
      measure:
        "rows written per step (resets included), most over fewest minute from minute 2 (minute 1 holds each session's first reset)",
      roost: Math.max(...settled).toFixed(2),
      reference: `${Math.min(...settled).toFixed(2)} (minute 1: ${perStep[0]!.toFixed(2)})`,
      ratio: times(spread),
      target: "≤ 1.05× (constant)",
      met: spread <= 1.05
    },
    {
      scenario: NAME,
      measure:
        "stored bytes per session (median of 8; SQLite's file, free pages included), at the end over minute 1",
      roost: bytes(last.stored),
      reference: bytes(first.stored),
      ratio: times(last.stored / first.stored),
      target: "—",
      met: null
    }
  );
  return rows;
};
