/**
 * @module Scenario 12: a trainer's load on Roost's OpenEnv socket — N
 * sessions started at once, each connect, reset, ten steps and close —
 * against a bare Durable Object answering the same frames with one row
 * each, its socket held in the worker (as Roost holds its channel) and in
 * the object (hibernatable). Roost's own session socket runs the same
 * episodes beside them, its session made over HTTP first, to show how
 * much of the gap is OpenEnv's channel and how much the session.
 * Run by name only: `npm run bench -- openenv`.
 */

import { workerdCpuMs } from "./lib/cpu";
import { openEnvDial } from "./lib/openenv-client";
import { sessionSocketDial } from "./lib/session-socket-client";
import {
  type Dial,
  type PhasedWave,
  runPhasedWave,
  runSession
} from "./lib/socket-waves";
import { interleave, progress } from "./lib/stats";
import { ms, type Row } from "./lib/table";
import {
  emptyTally,
  type Figures,
  figures,
  type PhaseFigures,
  phaseFigures,
  type Tally
} from "./openenv-figures";
import { phaseRows } from "./openenv-phase-rows";
import { type Contender, rows } from "./openenv-rows";

const STEPS = 10;
/** Sessions at once per wave; BENCH_OPENENV_SESSIONS=32,64 for a quick run. */
const SIZES = (process.env.BENCH_OPENENV_SESSIONS ?? "256,1024,2048")
  .split(",")
  .map(Number);
/** Waves per contender and size; BENCH_OPENENV_ROUNDS overrides. */
const ROUNDS = Number(process.env.BENCH_OPENENV_ROUNDS ?? 2);
/** The warm-up wave's sessions, per contender, before any size is timed. */
const WARMUP = 64;

/** Each contender's socket on the server at `baseUrl` (http…). */
const contenders = (baseUrl: string): Record<Contender, Dial> => {
  const ws = baseUrl.replace(/^http/, "ws");
  return {
    openenv: openEnvDial(`${ws}/v1/environments/counter/openenv/ws`),
    session: sessionSocketDial(baseUrl),
    worker: openEnvDial(`${ws}/bench/openenv/worker/ws`),
    object: openEnvDial(`${ws}/bench/openenv/object/ws`)
  };
};

/** N sessions at once; answers the wave's wall time and keeps its outcomes. */
const wave = async (
  dial: Dial,
  sessions: number,
  pgid: number,
  tally?: Tally
): Promise<number> => {
  const cpuBefore = workerdCpuMs(pgid);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: sessions }, () => runSession(dial, STEPS))
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

/** `make(key)` for every contender, as a record. */
const each = <T>(
  keys: readonly Contender[],
  make: (key: Contender) => T
): Record<Contender, T> =>
  Object.fromEntries(keys.map((k) => [k, make(k)])) as Record<Contender, T>;

export const openEnvScenario = async (
  baseUrl: string,
  pgid: number
): Promise<Row[]> => {
  const dials = contenders(baseUrl);
  const keys = Object.keys(dials) as Contender[];
  progress(`12 OpenEnv: warm-up, ${WARMUP} sessions per contender`);
  for (const key of keys) await wave(dials[key], WARMUP, pgid);
  const out: Row[] = [];
  for (const sessions of SIZES) {
    const context = { sessions, steps: STEPS, rounds: ROUNDS };
    const tallies = each(keys, emptyTally);
    await interleave(
      each(keys, (k) => () => wave(dials[k], sessions, pgid, tallies[k])),
      {
        rounds: ROUNDS,
        warmup: 0,
        label: `12 OpenEnv, ${sessions} sessions at once`
      }
    );
    const f: Record<Contender, Figures> = each(keys, (k) =>
      figures(tallies[k])
    );
    for (const k of keys)
      progress(
        `12 OpenEnv ${sessions} ${k}: ${f[k].rate.toFixed(0)} steps/s, ${f[k].ok}/${f[k].total} ok, connect p50 ${ms(f[k].connect.p50)}, workerd CPU ${ms(f[k].cpu)} per session`
      );
    out.push(...rows(context, f));
    const phased = each(keys, () => [] as PhasedWave[]);
    await interleave(
      each(keys, (k) => async () => {
        const w = await runPhasedWave(dials[k], sessions, STEPS, () =>
          workerdCpuMs(pgid)
        );
        phased[k].push(w);
        return w.stepWallMs;
      }),
      {
        rounds: ROUNDS,
        warmup: 0,
        label: `12 OpenEnv step phase, ${sessions} sessions`
      }
    );
    const pf: Record<Contender, PhaseFigures> = each(keys, (k) =>
      phaseFigures(phased[k])
    );
    for (const k of keys)
      progress(
        `12 OpenEnv step phase ${sessions} ${k}: ${pf[k].rate.toFixed(0)} steps/s, step p50 ${ms(pf[k].step.p50)}, CPU ${ms(pf[k].cpuPerStep)} per step, connect p50 ${ms(pf[k].connect)}, ${pf[k].ok}/${pf[k].total} ok`
      );
    out.push(...phaseRows(context, pf));
  }
  return out;
};
