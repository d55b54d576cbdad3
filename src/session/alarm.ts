/** @module The alarm: one handler per timer kind, each run when its timer is due. */

import * as idempotency from "../storage/idempotency";
import { purgeEpisodesBefore } from "../storage/purge";
import type { SessionRow } from "../storage/session-row";
import type { CallTasks } from "./call-tasks";
import { closeSession } from "./close";
import { expireImport } from "./fork-import";
import { expireSnapshots } from "./fork-source";
import type { TimerKind } from "./schedule";
import type { SessionShared } from "./shared";
import type { TreeRuns } from "./tree-runs";

interface AlarmContext {
  shared: SessionShared;
  runs: TreeRuns;
  tasks: CallTasks;
  row: SessionRow;
  now: number;
  /** Sockets still open: someone watching keeps the session alive. */
  openSockets: number;
}

/** "deleted" when the handler deleted the session: nothing else may run. */
type AlarmHandler = (a: AlarmContext) => Promise<"deleted" | undefined>;

/** A due timer of a kind without a handler here is dropped. */
const HANDLERS: Partial<Record<TimerKind, AlarmHandler>> = {
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
  run: async ({ runs }) => {
    await runs.drive();
    return undefined;
  },
  // Drives pending task calls; while this instance drives them already,
  // the lease only moves on (an alarm left due would fire again at once).
  task: async ({ tasks, now }) => {
    if (tasks.driving) tasks.renewLease(now);
    else await tasks.drive();
    return undefined;
  },
  taskExpiry: async ({ shared, tasks, now }) => {
    shared.storage.transactionSync(() => tasks.expire(now));
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
  shared: SessionShared,
  runs: TreeRuns,
  tasks: CallTasks,
  openSockets: number
): Promise<void> => {
  // The alarm that fired is gone; whatever comes next must be set anew.
  shared.schedule.forget();
  const row = shared.loadRow();
  const now = shared.now();
  // No session row: nothing, or a copy being imported (or abandoned) by a fork.
  if (row === undefined) return expireImport(shared, now);
  for (const kind of shared.schedule.due(now)) {
    const handler = HANDLERS[kind];
    if (handler === undefined) shared.schedule.clear(kind);
    else if (
      (await handler({ shared, runs, tasks, row, now, openSockets })) ===
      "deleted"
    )
      return;
  }
  await shared.schedule.arm();
};
