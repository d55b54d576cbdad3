/** @module The CLI's progress display: one redrawn line on a terminal, periodic plain lines in logs. */

import type {
  GroupSummary,
  RolloutProgress,
  RolloutSummary
} from "../client/trajectory";

const BAR_WIDTH = 24;

/**
 * One line of progress. The rate waits for the first finished episode: the
 * first steps' rate says more about connection setup than throughput.
 *
 * @example
 * formatProgress(p); // "[██████░░░…]  50/200 episodes  38.2 steps/s  mean return 1.000  errors 0"
 */
export const formatProgress = (p: RolloutProgress): string => {
  const filled =
    p.total === 0 ? BAR_WIDTH : Math.round((p.done / p.total) * BAR_WIDTH);
  const bar = "█".repeat(filled) + "░".repeat(BAR_WIDTH - filled);
  const width = String(p.total).length;
  const mean = p.mean_return === null ? "-" : p.mean_return.toFixed(3);
  const rate = p.done === 0 ? "-" : p.steps_per_second.toFixed(1);
  return `[${bar}] ${String(p.done).padStart(width)}/${p.total} episodes  ${rate} steps/s  mean return ${mean}  errors ${p.errors}`;
};

/**
 * What a finished (or stopped) run printed last: one labelled line per
 * figure. `output` is where the trajectories went.
 */
export const formatSummary = (s: RolloutSummary, output: string): string => {
  const row = (label: string, value: string) => `  ${label.padEnd(14)}${value}`;
  const codes = Object.entries(s.error_codes)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([code, n]) => `${code} ×${n}`);
  const mean =
    s.mean_return === null || s.return_std === null
      ? "-"
      : `${s.mean_return.toFixed(3)} ± ${s.return_std.toFixed(3)}  (${s.done - s.errors} without error)`;
  const success =
    s.done === 0
      ? "-"
      : `${((100 * s.successes) / s.done).toFixed(1)} %  (${s.successes} of ${s.done} ended by the environment with a positive return)`;
  return [
    s.done < s.total
      ? `Stopped after ${s.done} of ${s.total} episodes in ${seconds(s.elapsed_ms)}.`
      : `Finished ${s.done} episodes in ${seconds(s.elapsed_ms)}.`,
    row("failed", codes.length ? `${s.errors}  (${codes.join(", ")})` : "0"),
    row("mean return", mean),
    row("success rate", success),
    row(
      "steps",
      `${s.steps}  (${s.elapsed_ms > 0 ? s.steps_per_second.toFixed(1) : "-"} steps/s)`
    ),
    ...(s.groups === undefined
      ? []
      : [
          row("groups", groupLine(s.groups)),
          row(
            "with signal",
            s.signal_share === null || s.signal_share === undefined
              ? "-"
              : `${(100 * s.signal_share).toFixed(1)} %  (groups whose returns were not all equal)`
          ),
          ...groupRows(s.groups),
          ...(s.judge_errors === undefined
            ? []
            : [
                row(
                  "group judge",
                  `${s.groups.length - s.judge_errors} of ${s.groups.length} groups scored${s.judge_errors > 0 ? `; ${s.judge_errors} not (group_judge_error in their lines)` : ""}`
                )
              ])
        ]),
    row("trajectories", output === "-" ? "stdout" : output),
    ...(s.undeleted > 0
      ? [
          row(
            "undeleted",
            `${s.undeleted} session(s); they expire after their idle TTL`
          )
        ]
      : [])
  ].join("\n");
};

/**
 * Groups at a glance: how many, their mean spread of returns, and how many
 * had none (every episode scored alike: no signal for a group-relative update).
 */
const groupLine = (groups: GroupSummary[]): string => {
  const spreads = groups
    .map((g) => g.return_std)
    .filter((v): v is number => v !== null);
  const mean =
    spreads.length === 0
      ? "-"
      : (spreads.reduce((a, b) => a + b, 0) / spreads.length).toFixed(3);
  const flat = groups.filter((g) => g.flat).length;
  const sizes = [...new Set(groups.map((g) => g.episodes))].join("/");
  return `${groups.length} of ${sizes} episodes  (mean within-group return std ${mean}; ${flat} with no spread: advantages all 0)`;
};

/** Groups listed one per line, while few enough to read. */
const LISTED_GROUPS = 16;

const groupRows = (groups: GroupSummary[]): string[] =>
  groups.length > LISTED_GROUPS
    ? []
    : groups.map(
        (g) =>
          `    group ${String(g.group_id).padEnd(4)}${
            g.mean_return === null || g.return_std === null
              ? "-"
              : `${g.mean_return.toFixed(3)} ± ${g.return_std.toFixed(3)}`
          }  ${g.successes}/${g.episodes} succeeded${g.errors > 0 ? `, ${g.errors} failed` : ""}${g.flat ? "  (no spread)" : ""}`
      );

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

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
