/**
 * @module Scenario 12: a trainer's load on Roost's OpenEnv socket — N
 * sessions started at once, each connect, reset, ten steps and close —
 * against a bare Durable Object answering the same frames with one row
 * each, its socket held in the worker (as Roost holds its channel) and in
 * the object (hibernatable). Run by name only: `npm run bench -- openenv`.
 */

import { workerdCpuMs } from "./lib/cpu";
import {
  type Outcome,
  type PhasedWave,
  runPhasedWave,
  runSession
} from "./lib/openenv-client";
import { interleave, median, percentile, progress } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const STEPS = 10;
/** Sessions at once per wave; BENCH_OPENENV_SESSIONS=32,64 for a quick run. */
const SIZES = (process.env.BENCH_OPENENV_SESSIONS ?? "256,1024,2048")
  .split(",")
  .map(Number);
/** Waves per contender and size; BENCH_OPENENV_ROUNDS overrides. */
const ROUNDS = Number(process.env.BENCH_OPENENV_ROUNDS ?? 2);
/** The warm-up wave's sessions, per contender, before any size is timed. */
const WARMUP = 64;
/** The size the targets are about. */
const TARGET_AT = 1024;
const STEPS_TARGET = 0.8;
const CONNECT_TARGET = 1.5;
/** Issue 48: the step phase's step p50 at most this many times the bare DO's (its socket in the object). */
const STEP_P50_TARGET = 1.3;

const CONTENDERS = {
  roost: "/v1/environments/counter/openenv/ws",
  worker: "/bench/openenv/worker/ws",
  object: "/bench/openenv/object/ws"
} as const;
type Contender = keyof typeof CONTENDERS;

/** Every session of every timed wave of one contender at one size. */
interface Tally {
  outcomes: Outcome[];
  /** Answered steps per second of each wave. */
  rates: number[];
  /** workerd CPU milliseconds per session of each wave (none without /proc). */
  cpu: number[];
}

/** N sessions at once; answers the wave's wall time and keeps its outcomes. */
const wave = async (
  url: string,
  sessions: number,
  pgid: number,
  tally?: Tally
): Promise<number> => {
  const cpuBefore = workerdCpuMs(pgid);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: sessions }, () => runSession(url, STEPS))
  );
  const wall = performance.now() - started;
  const cpuAfter = workerdCpuMs(pgid);
  if (tally !== undefined) {
    if (cpuBefore !== undefined && cpuAfter !== undefined)
      tally.cpu.push((cpuAfter - cpuBefore) / sessions);
    const steps = outcomes.reduce(
      (sum, o) => sum + (o.ok ? o.times.steps.length : o.steps),
      0
    );
    tally.outcomes.push(...outcomes);
    tally.rates.push((steps * 1000) / wall);
  }
  return wall;
};

const figures = (tally: Tally) => {
  const done = tally.outcomes.flatMap((o) => (o.ok ? [o.times] : []));
  const pair = (xs: number[]) => ({
    p50: percentile(xs, 50),
    p99: percentile(xs, 99)
  });
  const reasons = new Map<string, number>();
  for (const o of tally.outcomes) {
    if (o.ok) continue;
    // An internal error names a reference of its own: count them as one reason.
    const reason = o.reason.replace(/reference = \S+/, "reference = …");
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return {
    total: tally.outcomes.length,
    ok: done.length,
    reasons,
    rate: median(tally.rates),
    cpu: median(tally.cpu),
    connect: pair(done.map((t) => t.connect)),
    reset: pair(done.map((t) => t.reset)),
    step: pair(done.flatMap((t) => t.steps)),
    close: pair(done.map((t) => t.close))
  };
};
type Figures = ReturnType<typeof figures>;

const p50p99 = (x: { p50: number; p99: number }) =>
  `${ms(x.p50)} / ${ms(x.p99)}`;

const success = (f: Figures): string => {
  const share = `${f.ok} of ${f.total} (${((100 * f.ok) / f.total).toFixed(1)} %)`;
  if (f.reasons.size === 0) return share;
  const why = [...f.reasons]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, n]) => `${n}× ${reason.slice(0, 100)}`)
    .join("; ");
  return `${share}; failed: ${why}`;
};

const rows = (sessions: number, f: Record<Contender, Figures>): Row[] => {
  const scenario = "12 OpenEnv sockets";
  const each = `${sessions.toLocaleString("en")} sockets at once`;
  const targeted = sessions === TARGET_AT;
  const stepRatio = f.roost.rate / f.worker.rate;
  const connectRatio = f.roost.connect.p50 / f.worker.connect.p50;
  const bare = (key: "worker" | "object") =>
    key === "worker" ? "bare DO, socket in the worker" : "in the object";
  return [
    {
      scenario,
      measure: `${each}, each connect + reset + ${STEPS} steps + close (counter's \`incr\`, OpenEnv's frames): sessions that finished`,
      roost: success(f.roost),
      reference: `${bare("worker")}: ${success(f.worker)}; ${bare("object")}: ${success(f.object)}`,
      ratio: "—",
      target: "100 %",
      met: f.roost.ok === f.roost.total
    },
    {
      scenario,
      measure: `${each}: answered steps ÷ the wave's wall time, median of ${ROUNDS} waves; ratio ÷ the bare DO with its socket in the worker`,
      roost: `${f.roost.rate.toFixed(0)} steps/s`,
      reference: `${bare("worker")}: ${f.worker.rate.toFixed(0)}/s; ${bare("object")}: ${f.object.rate.toFixed(0)}/s`,
      ratio: times(stepRatio),
      target: targeted ? `≥ ${STEPS_TARGET}×` : "—",
      met: targeted ? stepRatio >= STEPS_TARGET : null
    },
    {
      scenario,
      measure: `${each}: connect (socket open; Roost makes the session then) p50 / p99; ratio of the p50s`,
      roost: p50p99(f.roost.connect),
      reference: `${bare("worker")}: ${p50p99(f.worker.connect)}; ${bare("object")}: ${p50p99(f.object.connect)}`,
      ratio: times(connectRatio),
      target: targeted ? `≤ ${CONNECT_TARGET}×` : "—",
      met: targeted ? connectRatio <= CONNECT_TARGET : null
    },
    {
      scenario,
      measure: `${each}: reset p50 / p99; step p50 / p99; close (the close frame and a Close 1000 until the socket closed) p50 / p99 (ratio: the step p50s)`,
      roost: `${p50p99(f.roost.reset)}; ${p50p99(f.roost.step)}; ${p50p99(f.roost.close)}`,
      reference: `${bare("worker")}: ${p50p99(f.worker.reset)}; ${p50p99(f.worker.step)}; ${p50p99(f.worker.close)}; ${bare("object")}: ${p50p99(f.object.reset)}; ${p50p99(f.object.step)}; ${p50p99(f.object.close)}`,
      ratio: times(f.roost.step.p50 / f.worker.step.p50),
      target: "—",
      met: null
    },
    {
      scenario,
      measure: `${each}: workerd CPU per session (all its processes, from /proc; median of the waves)`,
      roost: ms(f.roost.cpu),
      reference: `${bare("worker")}: ${ms(f.worker.cpu)}; ${bare("object")}: ${ms(f.object.cpu)}`,
      ratio: times(f.roost.cpu / f.worker.cpu),
      target: "—",
      met: null
    },
    {
      scenario,
      measure: `${each}: where the bare DO's socket lives — in the object ÷ in the worker, steps/s (connect p50; CPU per session)`,
      roost: "—",
      reference: `${f.object.rate.toFixed(0)} ÷ ${f.worker.rate.toFixed(0)} steps/s (${ms(f.object.connect.p50)} ÷ ${ms(f.worker.connect.p50)}; ${ms(f.object.cpu)} ÷ ${ms(f.worker.cpu)})`,
      ratio: `${times(f.object.rate / f.worker.rate)} (${times(f.object.connect.p50 / f.worker.connect.p50)}; ${times(f.object.cpu / f.worker.cpu)})`,
      target: "—",
      met: null
    }
  ];
};

/** The step phases of one contender's phased waves. */
const phaseFigures = (waves: PhasedWave[]) => {
  const steps = waves.flatMap((w) => w.steps);
  const cpu = waves.flatMap((w) =>
    w.stepCpuMs === undefined ? [] : [w.stepCpuMs / Math.max(1, w.steps.length)]
  );
  return {
    sessions: waves.reduce((n, w) => n + w.ok, 0),
    failures: waves.flatMap((w) => w.failures),
    rate: median(waves.map((w) => (w.steps.length * 1000) / w.stepWallMs)),
    step: { p50: percentile(steps, 50), p99: percentile(steps, 99) },
    connect: percentile(
      waves.flatMap((w) => w.connect),
      50
    ),
    cpuPerStep: cpu.length === 0 ? Number.NaN : median(cpu)
  };
};
type PhaseFigures = ReturnType<typeof phaseFigures>;

const phaseRows = (
  sessions: number,
  f: Record<Contender, PhaseFigures>
): Row[] => {
  const scenario = "12 OpenEnv sockets";
  const each = `${sessions.toLocaleString("en")} sockets, step phase (all connected and reset first, then ${STEPS} steps each timed alone)`;
  const targeted = sessions === TARGET_AT;
  const rate = f.roost.rate / f.object.rate;
  const p50 = f.roost.step.p50 / f.object.step.p50;
  const failed = (x: PhaseFigures) =>
    x.failures.length === 0
      ? ""
      : `; ${x.failures.length} failed (${x.failures[0]?.slice(0, 80)})`;
  return [
    {
      scenario,
      measure: `${each}: steps/s, median of ${ROUNDS} waves; ratio ÷ the bare DO with its socket in the object`,
      roost: `${f.roost.rate.toFixed(0)} steps/s${failed(f.roost)}`,
      reference: `in the object: ${f.object.rate.toFixed(0)}/s${failed(f.object)}; in the worker: ${f.worker.rate.toFixed(0)}/s${failed(f.worker)}`,
      ratio: times(rate),
      target: targeted ? `≥ ${STEPS_TARGET}× (issue 48)` : "—",
      met: targeted ? rate >= STEPS_TARGET : null
    },
    {
      scenario,
      measure: `${each}: step p50 / p99; ratio of the p50s ÷ the bare DO with its socket in the object`,
      roost: p50p99(f.roost.step),
      reference: `in the object: ${p50p99(f.object.step)}; in the worker: ${p50p99(f.worker.step)}`,
      ratio: times(p50),
      target: targeted ? `≤ ${STEP_P50_TARGET}× (issue 48)` : "—",
      met: targeted ? p50 <= STEP_P50_TARGET : null
    },
    {
      scenario,
      measure: `${each}: workerd CPU per step (all its processes, over the step phase); ratio ÷ the bare DO with its socket in the object`,
      roost: ms(f.roost.cpuPerStep),
      reference: `in the object: ${ms(f.object.cpuPerStep)}; in the worker: ${ms(f.worker.cpuPerStep)}`,
      ratio: times(f.roost.cpuPerStep / f.object.cpuPerStep),
      target: "—",
      met: null
    },
    {
      scenario,
      measure: `${each}: connect p50 with every socket opening at once; ratio ÷ the bare DO reached through the worker`,
      roost: ms(f.roost.connect),
      reference: `through the worker: ${ms(f.worker.connect)}; in the object: ${ms(f.object.connect)}`,
      ratio: times(f.roost.connect / f.worker.connect),
      target: targeted ? `≤ ${CONNECT_TARGET}× (issue 48)` : "—",
      met: targeted
        ? f.roost.connect / f.worker.connect <= CONNECT_TARGET
        : null
    }
  ];
};

export const openEnvScenario = async (
  baseUrl: string,
  pgid: number
): Promise<Row[]> => {
  const base = baseUrl.replace(/^http/, "ws");
  const keys = Object.keys(CONTENDERS) as Contender[];
  progress(`12 OpenEnv: warm-up, ${WARMUP} sessions per contender`);
  for (const key of keys) await wave(`${base}${CONTENDERS[key]}`, WARMUP, pgid);
  const out: Row[] = [];
  for (const sessions of SIZES) {
    const tallies = Object.fromEntries(
      keys.map((k) => [k, { outcomes: [], rates: [], cpu: [] }])
    ) as unknown as Record<Contender, Tally>;
    const probes = Object.fromEntries(
      keys.map((k) => [
        k,
        () => wave(`${base}${CONTENDERS[k]}`, sessions, pgid, tallies[k])
      ])
    ) as Record<Contender, () => Promise<number>>;
    await interleave(probes, {
      rounds: ROUNDS,
      warmup: 0,
      label: `12 OpenEnv, ${sessions} sessions at once`
    });
    const f = Object.fromEntries(
      keys.map((k) => [k, figures(tallies[k])])
    ) as Record<Contender, Figures>;
    for (const k of keys)
      progress(
        `12 OpenEnv ${sessions} ${k}: ${f[k].rate.toFixed(0)} steps/s, ${f[k].ok}/${f[k].total} ok, connect p50 ${ms(f[k].connect.p50)}, workerd CPU ${ms(f[k].cpu)} per session`
      );
    out.push(...rows(sessions, f));
    const phased = Object.fromEntries(
      keys.map((k) => [k, [] as PhasedWave[]])
    ) as Record<Contender, PhasedWave[]>;
    await interleave(
      Object.fromEntries(
        keys.map((k) => [
          k,
          async () => {
            const w = await runPhasedWave(
              `${base}${CONTENDERS[k]}`,
              sessions,
              STEPS,
              () => workerdCpuMs(pgid)
            );
            phased[k].push(w);
            return w.stepWallMs;
          }
        ])
      ) as Record<Contender, () => Promise<number>>,
      {
        rounds: ROUNDS,
        warmup: 0,
        label: `12 OpenEnv step phase, ${sessions} sessions`
      }
    );
    const pf = Object.fromEntries(
      keys.map((k) => [k, phaseFigures(phased[k])])
    ) as Record<Contender, PhaseFigures>;
    for (const k of keys)
      progress(
        `12 OpenEnv step phase ${sessions} ${k}: ${pf[k].rate.toFixed(0)} steps/s, step p50 ${ms(pf[k].step.p50)}, CPU ${ms(pf[k].cpuPerStep)} per step, connect p50 ${ms(pf[k].connect)}`
      );
    out.push(...phaseRows(sessions, pf));
  }
  return out;
};
