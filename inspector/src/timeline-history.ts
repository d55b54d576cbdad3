/** @module Fills the timeline with what happened before the page opened: the log's newest window, older ones on request. */

import type { Credentials } from "./api";
import { guarded } from "./errors";
import { readHistory } from "./history";
import { placeHistory, showEarlier } from "./timeline";

/** Bumped per session shown: a read for a session no longer shown is dropped. */
let shown = 0;

/**
 * Called once per session shown, on the socket's first snapshot: `upTo` is
 * its `last_seq`, the last event the socket will not deliver, and `oldest`
 * its `oldest_seq`, the first the log still holds.
 */
export const loadHistory = (
  session: Credentials,
  upTo: number,
  oldest: number
): void => {
  const generation = ++shown;
  const load = async (end: number): Promise<void> => {
    const window = await readHistory(session, end, oldest);
    if (generation !== shown) return;
    placeHistory(window.events);
    showEarlier(
      window.from + 1,
      window.earlier ? guarded(() => load(window.from)) : undefined
    );
  };
  if (upTo > 0) void guarded(() => load(upTo))();
};

/** Drops any read still under way: another session is being shown. */
export const forgetHistory = (): void => {
  shown++;
};
