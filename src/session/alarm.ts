/** @module The alarm: one handler per timer kind, each run when its timer is due. */

import * as idempotency from "../storage/idempotency";
import { purgeEpisodesBefore } from "../storage/purge";
import type { SessionRow } from "../storage/session-row";
import { closeSession } from "./close";
import type { SessionCore } from "./core";
import { expireImport, expireSnapshots } from "./fork-sides";
import type { TimerKind } from "./schedule";
import type { TreeRuns } from "./tree-runs";

interface AlarmContext {
  core: SessionCore;
  runs: TreeRuns;
  row: SessionRow;
  now: number;
  /** Sockets still open: someone watching keeps the session alive. */
  openSockets: number;
}

/** "deleted" when the handler deleted the session: nothing else may run. */
type AlarmHandler = (a: AlarmContext) => Promise<"deleted" | undefined>;

/** A due timer of a kind without a handler here is dropped. */
const HANDLERS: Partial<Record<TimerKind, AlarmHandler>> = {
  ttl: async ({ core, row, now, openSockets }) => {
    const idleSince = core.lastUsed(row);
    const ttl = core.isAwaitingUse()
      ? core.options.unusedTtlMs
      : core.options.idleTtlMs;
    if (openSockets > 0 || now < idleSince + ttl) {
      // Someone is watching or the session was used since: look again later.
      core.schedule.set("ttl", Math.max(now, idleSince) + ttl);
      return undefined;
    }
    await closeSession(core, "expired");
    return "deleted";
  },
  purge: async ({ core, row, now }) => {
    const batch = core.options.purgeBatch;
    const deleted = core.storage.transactionSync(() =>
      purgeEpisodesBefore(core.sql, row.episode, batch)
    );
    if (deleted < batch) core.schedule.clear("purge");
    else core.schedule.set("purge", now);
    return undefined;
  },
  // Drives the run to its end (or failure); passes commit one by one.
  run: async ({ runs }) => {
    await runs.drive();
    return undefined;
  },
  fork: async ({ core, now }) => {
    core.storage.transactionSync(() => expireSnapshots(core, now));
    return undefined;
  },
  idempotency: async ({ core, now }) => {
    idempotency.expire(core.sql, now);
    const next = idempotency.nextExpiry(core.sql);
    if (next === undefined) core.schedule.clear("idempotency");
    else core.schedule.set("idempotency", next);
    return undefined;
  }
};

/** Runs every due timer's handler, then points the alarm at the next one. */
export const runAlarm = async (
  core: SessionCore,
  runs: TreeRuns,
  openSockets: number
): Promise<void> => {
  // The alarm that fired is gone; whatever comes next must be set anew.
  core.schedule.forget();
  const row = core.loadRow();
  const now = core.now();
  // No session row: nothing, or a copy being imported (or abandoned) by a fork.
  if (row === undefined) return expireImport(core, now);
  for (const kind of core.schedule.due(now)) {
    const handler = HANDLERS[kind];
    if (handler === undefined) core.schedule.clear(kind);
    else if (
      (await handler({ core, runs, row, now, openSockets })) === "deleted"
    )
      return;
  }
  await core.schedule.arm();
};
