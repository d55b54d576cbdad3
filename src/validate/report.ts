/** @module The validator's report: one row per check, PASS, FAIL, SKIP or a number, and the table the CLI prints. */

export type Status = "PASS" | "FAIL" | "SKIP" | "INFO";

export interface CheckRow {
  /** e.g. `determinism`, `floor: random`. */
  check: string;
  status: Status;
  /** A measured number (a mean return), when the check has one. */
  value?: number;
  /** Why it failed, or what was checked. */
  detail: string;
}

export interface ValidationReport {
  environment: string;
  /** The server whose sessions were checked; absent for local sessions. */
  server?: string;
  rows: CheckRow[];
  /** True when no row failed. */
  ok: boolean;
}

export const row = (
  check: string,
  failure: string | undefined,
  passed: string,
  value?: number
): CheckRow => ({
  check,
  status: failure === undefined ? "PASS" : "FAIL",
  ...(value === undefined ? {} : { value }),
  detail: failure ?? passed
});

/** The report as a plain-text table. */
export const formatReport = (report: ValidationReport): string => {
  const width = Math.max(...report.rows.map((r) => r.check.length), 5);
  const lines = report.rows.map((r) => {
    const status =
      r.value === undefined ? r.status : `${r.status} ${r.value.toFixed(3)}`;
    return `  ${r.check.padEnd(width)}  ${status.padEnd(10)}  ${r.detail}`;
  });
  const failed = report.rows.filter((r) => r.status === "FAIL").length;
  return [
    report.server === undefined
      ? report.environment
      : `${report.environment} on ${report.server}`,
    ...lines,
    `  ${failed === 0 ? "passed" : `${failed} check${failed === 1 ? "" : "s"} failed`}`,
    ""
  ].join("\n");
};
