/**
 * @module Cloudflare's published Durable Objects prices (Workers Paid plan,
 * beyond the included amounts), and what a measured operation costs at them.
 */

/**
 * As published at https://developers.cloudflare.com/durable-objects/platform/pricing/
 * (read 2026-11-26): requests $0.15 per million (HTTP requests, RPC
 * sessions, alarm invocations; incoming WebSocket messages at 20 to one
 * request); duration $12.50 per million GB-s, charged for the object's
 * 128 MB whatever it uses; SQLite rows read $0.001 per million and rows
 * written $1.00 per million (each `setAlarm` one row written, deletes
 * counted as writes). Stored data ($0.20 per GB-month) is not per
 * operation and is left out. Included amounts (1 million requests, 400 000
 * GB-s, 25 billion rows read, 50 million rows written a month) are not
 * subtracted: these are marginal prices.
 */
export const PRICES = {
  readOn: "2026-11-26",
  source: "https://developers.cloudflare.com/durable-objects/platform/pricing/",
  perMillionRequests: 0.15,
  perMillionGbSeconds: 12.5,
  perMillionRowsRead: 0.001,
  perMillionRowsWritten: 1.0,
  /** 128 MB, as GB. */
  gbPerObject: 128 / 1024,
  /** Incoming WebSocket messages per billed request. */
  socketMessagesPerRequest: 20
} as const;

/** One operation as billed: averages per operation. */
export interface Billed {
  rowsWritten: number;
  rowsRead: number;
  /** Billed requests: RPC calls, fetches and alarms, plus socket messages ÷ 20. */
  requests: number;
  /** Seconds the object is billed as active: the client's wall time, an upper bound. */
  seconds: number;
}

/** Dollars per million such operations, and the part of it that is rows written. */
export const perMillion = (b: Billed): { total: number; rows: number } => {
  const rows = b.rowsWritten * PRICES.perMillionRowsWritten;
  return {
    rows,
    total:
      rows +
      b.rowsRead * PRICES.perMillionRowsRead +
      b.requests * PRICES.perMillionRequests +
      b.seconds * PRICES.gbPerObject * PRICES.perMillionGbSeconds
  };
};
