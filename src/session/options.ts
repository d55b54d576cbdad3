/** @module Runtime options, resolved once: limits, lifetime, timeouts. */

import { DEFAULT_LIMITS, type Limits, LimitsSchema } from "../protocol/limits";
import type { ModelFactory } from "./models";

export interface RoostOptions {
  /** Size and rate limits; each falls back to its default in `LimitsSchema` (protocol/limits.ts). */
  limits?: Partial<Limits>;
  /** Idle time after which a session and all its storage are deleted (default 24 h). */
  idleTtlMs?: number;
  /**
   * Idle time after which a session a client opened but never used is
   * deleted: an MCP `initialize` with no request after it (default 10 min).
   */
  unusedTtlMs?: number;
  /** Default per-call tool timeout (default 30 s). */
  toolTimeoutMs?: number;
  /** Rows deleted per alarm when purging old episodes (default 1000). */
  purgeBatch?: number;
  /** Per-session rate limit on mutating calls (`limits.mutationsPerSecond`); false turns it off. */
  rateLimit?: boolean;
  /** Events a socket that sends `ack` frames may fall behind before it is closed with 4408 (default 1000). */
  socketBacklog?: number;
  /** Decision models runs may name, built from the worker's env (see models.ts). */
  models?: Record<string, ModelFactory>;
  /**
   * The name of the Worker Loader binding (`[[worker_loaders]]` in
   * wrangler.toml) code tools start the model's isolates with; default
   * "LOADER". A session whose worker has no such binding runs every other
   * tool as usual, and its code tools answer that they need one. False:
   * never hand tools a loader, even when the binding exists.
   */
  loader?: string | false;
}

export interface ResolvedOptions {
  limits: Limits;
  idleTtlMs: number;
  unusedTtlMs: number;
  toolTimeoutMs: number;
  purgeBatch: number;
  socketBacklog: number;
  rateLimit: boolean;
  models: Record<string, ModelFactory>;
  loader: string | false;
}

const positive = (
  name: string,
  value: number | undefined,
  fallback: number
): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(
      `Roost option ${name} must be a whole number > 0, got ${value}.`
    );
  }
  return value;
};

export const resolveOptions = (
  options: RoostOptions = {}
): ResolvedOptions => ({
  // Without limits the answer is the defaults: not building the schema
  // for that keeps it off a cold isolate's startup.
  limits:
    options.limits === undefined
      ? { ...DEFAULT_LIMITS }
      : LimitsSchema().parse(options.limits),
  idleTtlMs: positive("idleTtlMs", options.idleTtlMs, 24 * 60 * 60 * 1000),
  unusedTtlMs: positive("unusedTtlMs", options.unusedTtlMs, 10 * 60 * 1000),
  toolTimeoutMs: positive("toolTimeoutMs", options.toolTimeoutMs, 30_000),
  purgeBatch: positive("purgeBatch", options.purgeBatch, 1000),
  socketBacklog: positive("socketBacklog", options.socketBacklog, 1000),
  rateLimit: options.rateLimit ?? true,
  models: options.models ?? {},
  loader: options.loader ?? "LOADER"
});
