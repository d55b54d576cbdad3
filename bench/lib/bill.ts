/** @module What a metered object reports at /bench/bill/:id, shared by the bench worker and the bill scenario. */

/** Rows as storage/row-meter.ts counts them (kept apart: that module needs workerd's types). */
export interface Rows {
  rowsRead: number;
  rowsWritten: number;
  statements: number;
  alarmsSet: number;
}

/** What an object's requests billed since the bill was last read. */
export interface Bill {
  /** Rows of its RPC calls, fetches and socket messages (and of waking). */
  rows: Rows;
  /** Rows its alarms read and wrote: work the operations deferred past their answers. */
  deferred: Rows;
  /** RPC calls and fetches (a socket's upgrade among them), each a billed request. */
  requests: number;
  /** Socket messages received, billed at 20 to a request. */
  socketMessages: number;
  /** Alarm invocations, each a billed request. */
  alarms: number;
}

export const addRows = (a: Rows, b: Rows): Rows => ({
  rowsRead: a.rowsRead + b.rowsRead,
  rowsWritten: a.rowsWritten + b.rowsWritten,
  statements: a.statements + b.statements,
  alarmsSet: a.alarmsSet + b.alarmsSet
});

const zero = (): Rows => ({
  rowsRead: 0,
  rowsWritten: 0,
  statements: 0,
  alarmsSet: 0
});

export const emptyBill = (): Bill => ({
  rows: zero(),
  deferred: zero(),
  requests: 0,
  socketMessages: 0,
  alarms: 0
});
