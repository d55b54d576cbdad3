/** @module The CLI's progress display: one redrawn line on a terminal, periodic plain lines in logs. */

import type { RolloutProgress } from "./trajectory";

const BAR_WIDTH = 24;

/**
 * One line of progress.
 *
 * @example
 * formatProgress(p); // "[██████░░░…]  50/200 episodes  38.2 steps/s  mean reward 1.000  errors 0"
 */
export const formatProgress = (p: RolloutProgress): string => {
  const filled =
    p.total === 0 ? BAR_WIDTH : Math.round((p.done / p.total) * BAR_WIDTH);
  const bar = "█".repeat(filled) + "░".repeat(BAR_WIDTH - filled);
  const width = String(p.total).length;
  const mean = p.mean_return === null ? "-" : p.mean_return.toFixed(3);
  return `[${bar}] ${String(p.done).padStart(width)}/${p.total} episodes  ${p.steps_per_second.toFixed(1)} steps/s  mean reward ${mean}  errors ${p.errors}`;
};

export interface ProgressOutput {
  write(text: string): void;
  isTTY: boolean;
}

/**
 * Throttles redraws: a terminal line at most every `ttyMs` (default 100 ms),
 * a log line at most every `logMs` (default 5 s). `finish` always prints.
 */
export class ProgressReporter {
  readonly #out: ProgressOutput;
  readonly #now: () => number;
  readonly #every: number;
  #last = Number.NEGATIVE_INFINITY;

  constructor(
    out: ProgressOutput,
    options: { now?: () => number; ttyMs?: number; logMs?: number } = {}
  ) {
    this.#out = out;
    this.#now = options.now ?? Date.now;
    this.#every = out.isTTY ? (options.ttyMs ?? 100) : (options.logMs ?? 5000);
  }

  update(progress: RolloutProgress): void {
    const now = this.#now();
    if (now - this.#last < this.#every) return;
    this.#last = now;
    this.#print(progress);
  }

  finish(progress: RolloutProgress): void {
    this.#print(progress);
    if (this.#out.isTTY) this.#out.write("\n");
  }

  #print(progress: RolloutProgress): void {
    const line = formatProgress(progress);
    // \x1b[K clears what a longer previous line left behind.
    this.#out.write(this.#out.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }
}
