/** @module The alarm: one handler per timer kind, each run when its timer is due. */

import * as idempotency from "../storage/idempotency";
import { purgeEpisodesBefore } from "../storage/purge";
import { closeSession } from "./close";
import { expireImport } from "./fork-import";
import { expireSnapshots } from "./fork-source";
import type { AlarmHandler } from "./layer";
import type { SessionRuntime } from "./runtime";
import type { TimerKind } from "./schedule";

/** The core's timers; a layer's come with it (layer.ts). A due timer of a kind without a handler is dropped. */
export const CORE_ALARMS: Readonly<Partial<Record<TimerKind, AlarmHandler>>> = {
  ttl: async ({ shared, row, now, openSockets }) => {
    const idleSince = shared.lastUsed(row);
    const ttl = shared.isAwaitingUse()
      ? shared.options.unusedTtlMs
      : shared.options.idleTtlMs;
    if (openSockets > 0 || now < idleSince + ttl) {
      // Someone is watching or the session was used since: look again later.
      shared.schedule.set("ttl", Math.max(now, idleSince) + ttl);
      return undefined;
    }
    await closeSession(shared, "expired");
    return "deleted";
  },
  purge: async ({ shared, row, now }) => {
    const batch = shared.options.purgeBatch;
    const deleted = shared.storage.transactionSync(() =>
      purgeEpisodesBefore(shared.sql, row.episode, batch)
    );
    if (deleted < batch) shared.schedule.clear("purge");
    else shared.schedule.set("purge", now);
    return undefined;
  },
  // Drives the run to its end (or failure); passes commit one by one.
  run: async ({ runtime }) => {
    await runtime.runs.drive();
    return undefined;
  },
  fork: async ({ shared, now }) => {
    shared.storage.transactionSync(() => expireSnapshots(shared, now));
    return undefined;
  },
  idempotency: async ({ shared, now }) => {
    idempotency.expire(shared.sql, now);
    const next = idempotency.nextExpiry(shared.sql);
    if (next === undefined) shared.schedule.clear("idempotency");
    else shared.schedule.set("idempotency", next);
    return undefined;
  }
};

/** Runs every due timer's handler, then points the alarm at the next one. */
export const runAlarm = async (
  runtime: SessionRuntime,
  handlers: Readonly<Partial<Record<TimerKind, AlarmHandler>>>,
  openSockets: number
): Promise<void> => {
  const shared = runtime.shared;
  // The alarm that fired is gone; whatever comes next must be set anew.
  shared.schedule.forget();
  const row = shared.loadRow();
  const now = shared.now();
  // No session row: nothing, or a copy being imported (or abandoned) by a fork.
  if (row === undefined) return expireImport(shared, now);
  for (const kind of shared.schedule.due(now)) {
    const handler = handlers[kind];
    if (handler === undefined) shared.schedule.clear(kind);
    else if (
      (await handler({ shared, runtime, row, now, openSockets })) === "deleted"
    )
      return;
  }
  await shared.schedule.arm();
};
