/**
 * @module Scenario 12's figures: what a contender's waves measured, folded
 * into medians and percentiles, and how its finished share is said.
 */

import type { Outcome, PhasedWave } from "./lib/socket-waves";
import { median, percentile } from "./lib/stats";
import { ms } from "./lib/table";

/** Every session of every timed whole-session wave of one contender at one size. */
export interface Tally {
  outcomes: Outcome[];
  /** Answered steps per second of each wave. */
  rates: number[];
  /** workerd CPU milliseconds per session of each wave (none without /proc). */
  cpu: number[];
}

export const emptyTally = (): Tally => ({ outcomes: [], rates: [], cpu: [] });

const pair = (xs: number[]) => ({
  p50: percentile(xs, 50),
  p99: percentile(xs, 99)
});

export const p50p99 = (x: { p50: number; p99: number }) =>
  `${ms(x.p50)} / ${ms(x.p99)}`;

/** The whole-session waves of one contender. */
export const figures = (tally: Tally) => {
  const done = tally.outcomes.flatMap((o) => (o.ok ? [o.times] : []));
  return {
    total: tally.outcomes.length,
    ok: done.length,
    reasons: tally.outcomes.flatMap((o) => (o.ok ? [] : [o.reason])),
    rate: median(tally.rates),
    cpu: median(tally.cpu),
    connect: pair(done.map((t) => t.connect)),
    create: pair(done.map((t) => t.create)),
    reset: pair(done.map((t) => t.reset)),
    step: pair(done.flatMap((t) => t.steps)),
    close: pair(done.map((t) => t.close))
  };
};
export type Figures = ReturnType<typeof figures>;

/** The step phases of one contender's phased waves. */
export const phaseFigures = (waves: PhasedWave[]) => {
  const steps = waves.flatMap((w) => w.steps);
  const cpu = waves.flatMap((w) =>
    w.stepCpuMs === undefined ? [] : [w.stepCpuMs / Math.max(1, w.steps.length)]
  );
  return {
    total: waves.reduce((n, w) => n + w.sessions, 0),
    ok: waves.reduce((n, w) => n + w.ok, 0),
    reasons: waves.flatMap((w) => w.failures),
    rate: median(waves.map((w) => (w.steps.length * 1000) / w.stepWallMs)),
    step: pair(steps),
    connect: percentile(
      waves.flatMap((w) => w.connect),
      50
    ),
    create: percentile(
      waves.flatMap((w) => w.create),
      50
    ),
    cpuPerStep: cpu.length === 0 ? Number.NaN : median(cpu)
  };
};
export type PhaseFigures = ReturnType<typeof phaseFigures>;

/** "x of y (z %)", and the commonest reasons the others failed. */
export const success = (f: {
  ok: number;
  total: number;
  reasons: string[];
}): string => {
  // Rounded down: one session lost in thousands must not read as 100.0 %.
  const percent = Math.floor((1000 * f.ok) / f.total) / 10;
  const share = `${f.ok} of ${f.total} (${percent.toFixed(1)} %)`;
  if (f.reasons.length === 0) return share;
  const counts = new Map<string, number>();
  for (const r of f.reasons) {
    // An internal error names a reference of its own: count them as one reason.
    const reason = r.replace(/reference = \S+/, "reference = …");
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const why = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, n]) => `${n}× ${reason.slice(0, 100)}`)
    .join("; ");
  return `${share}; failed: ${why}`;
};
