/** @module Medians, percentiles, interleaved rounds, and progress on stderr. */

const sorted = (xs: readonly number[]): number[] =>
  [...xs].sort((a, b) => a - b);

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return Number.NaN;
  const s = sorted(xs);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Nearest-rank percentile: with fewer than 100 samples, p99 is the maximum. */
export const percentile = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

/** A measurement: runs once and answers the milliseconds it counts. */
export type Probe = () => Promise<number>;

/**
 * Runs the probes in turn, round after round (A B A B …), after `warmup`
 * unrecorded rounds, so slow phases of a shared machine hit every
 * contender alike. With `block` > 1 each turn runs a probe that many
 * times in a row and drops the first: work an object defers past its
 * response (a write's sync) then slows its own next request, not the
 * other contender's. Answers a lookup of each probe's samples.
 */
export const interleave = async <K extends string>(
  probes: Record<K, Probe>,
  options: { rounds: number; warmup: number; label: string; block?: number }
): Promise<(key: K) => number[]> => {
  const block = options.block ?? 1;
  const keys = Object.keys(probes) as K[];
  const samples = new Map<K, number[]>(keys.map((k) => [k, []]));
  const total = options.warmup + options.rounds;
  for (let round = 0; round < total; round++) {
    for (const key of keys) {
      for (let i = 0; i < block; i++) {
        const ms = await probes[key]();
        if (round >= options.warmup && (block === 1 || i > 0))
          samples.get(key)!.push(ms);
      }
    }
    if ((round + 1) % Math.max(1, Math.floor(total / 4)) === 0)
      progress(`${options.label}: round ${round + 1}/${total}`);
  }
  return (key) => samples.get(key)!;
};

/** Times one async call, in milliseconds. */
export const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

const startedAt = performance.now();

/** A progress line on stderr, so stdout stays the table. */
export const progress = (message: string): void => {
  const s = ((performance.now() - startedAt) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${s}s] ${message}\n`);
};
