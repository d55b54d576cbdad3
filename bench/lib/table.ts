/** @module The results table: one row per figure, rendered as Markdown. */

export interface Row {
  /** The scenario's number and name, e.g. "1 Step overhead". */
  scenario: string;
  measure: string;
  /** Roost's figure (a median, p50/p99 or a size). */
  roost: string;
  /** What it is compared with. */
  reference: string;
  /** The ratio (or size) the target is about. */
  ratio: string;
  target: string;
  /** Whether the target is met; null for figures without a target. */
  met: boolean | null;
}

export const ms = (x: number): string =>
  Number.isFinite(x) ? `${x.toFixed(x < 10 ? 2 : 1)} ms` : "—";

export const times = (x: number): string =>
  Number.isFinite(x) ? `${x.toFixed(2)}×` : "—";

export const bytes = (n: number): string =>
  n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(2)} MiB`
    : n >= 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${Math.round(n)} B`;

const cell = (text: string): string => text.replaceAll("|", "\\|");

const verdict = (met: boolean | null): string =>
  met === null ? "" : met ? "✅" : "❌";

/** A Markdown table of any columns; `|` in a cell is escaped. */
export const markdownTable = (
  head: readonly string[],
  rows: readonly (readonly string[])[]
): string =>
  [
    `| ${head.map(cell).join(" | ")} |`,
    `|${head.map(() => "---|").join("")}`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)
  ].join("\n");

export const renderTable = (rows: readonly Row[]): string =>
  markdownTable(
    [
      "scenario",
      "measure",
      "Roost",
      "reference",
      "ratio / size",
      "target",
      "met"
    ],
    rows.map((r) => [
      r.scenario,
      r.measure,
      r.roost,
      r.reference,
      r.ratio,
      r.target,
      verdict(r.met)
    ])
  );
