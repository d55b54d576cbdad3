/**
 * @module Ending a session: the environment's `onClose` hook, run once,
 * then every row deleted. Delete and TTL expiry both end here.
 */

import { contextOf, type SessionParts } from "../environment/hook-calls";
import type { StateDefinition } from "../state/define-state";
import { committedParts } from "../storage/episode-parts";
import { withinTime } from "../timeout";
import { toException } from "../tools/content";
import type { SessionShared } from "./shared";

export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/** Marks that the hook ran, so a retry after the object died mid-delete skips it. */
const CLOSED_KEY = "closed";

const closedAlready = (shared: SessionShared): boolean =>
  shared.sql.exec("SELECT 1 FROM meta WHERE key = ?", CLOSED_KEY).toArray()
    .length > 0;

/**
 * Runs `onClose` at most once per session (the mark is written and made
 * durable before it starts), within its time limit; then deletes the
 * session's storage and alarm. A failing hook never keeps a session alive.
 */
export const closeSession = async (
  shared: SessionShared,
  reason: "deleted" | "expired"
): Promise<void> => {
  const row = shared.requireRow();
  const environment = shared.registry.get(row.environment);
  if (environment.onClose !== undefined && !closedAlready(shared)) {
    shared.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, '1')",
      CLOSED_KEY
    );
    await shared.storage.sync();
    const parts: SessionParts = committedParts(
      shared.sql,
      row.episode,
      environment.state as StateDefinition<never>,
      shared.storageOptions
    );
    try {
      await withinTime(
        () =>
          environment.onClose!({
            reason,
            // No hooks: a session that is going away streams nothing.
            ctx: contextOf(parts, row.episodeTask, {})
          }),
        environment.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS
      );
    } catch (error) {
      // A timeout is Roost's own error; anything else is the author's.
      const thrown = toException(error);
      console.error(
        `Roost: the onClose hook of environment "${environment.name}" failed (session ${row.sessionId}, ${reason}); deleting the session anyway:\n${thrown.stack ?? thrown.message}`
      );
    }
  }
  await shared.storage.deleteAll();
  shared.forget();
};
