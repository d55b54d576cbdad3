/** @module The session's retained event log, read over HTTP in windows of seqs ending where the socket took over. */

import { ApiError, type Credentials, sessionApi } from "./api";
import type { Frame } from "./live";

/**
 * Seqs read per window: the newest this many on opening a session, this
 * many more per "load earlier". Bounds the read and the rows it adds;
 * pages are cut by bytes too, so one huge event does not make one huge
 * response.
 */
export const HISTORY_WINDOW = 500;
const PAGE_BYTES = 256 * 1024;

export interface HistoryWindow {
  /** The window's events, oldest first, every seq at most `upTo`. */
  events: Frame[];
  /** The window started after this seq: the next "load earlier" ends here. */
  from: number;
  /** Whether the log may hold events at or before `from`. */
  earlier: boolean;
}

interface EventsPage {
  events: Frame[];
  next_after: number;
  truncated?: true;
}

/**
 * Reads the events with seq in (`upTo` - window, `upTo`]. `upTo` is the seq
 * the socket's snapshot stood at: what came after it, the socket delivers,
 * so nothing is shown twice and nothing falls between the two. The window
 * starts no earlier than the snapshot's `oldest` (asking before it is a
 * 410, which a browser logs as a failed load even when it is handled).
 */
export const readHistory = async (
  session: Credentials,
  upTo: number,
  oldest = 0
): Promise<HistoryWindow> => {
  let from = Math.max(0, upTo - HISTORY_WINDOW, oldest - 1);
  let earlier = from > 0 && from > oldest - 1;
  const events: Frame[] = [];
  let after = from;
  while (after < upTo) {
    let page: EventsPage;
    try {
      page = await sessionApi<EventsPage>(
        session,
        "GET",
        `/events?after=${after}&limit=${upTo - after}&max_bytes=${PAGE_BYTES}`
      );
    } catch (error) {
      const oldest = error instanceof ApiError && error.details?.oldest_seq;
      if (typeof oldest !== "number" || oldest - 1 <= after) throw error;
      // The window's start was trimmed: what is kept begins at the oldest.
      from = after = oldest - 1;
      earlier = false;
      continue;
    }
    for (const event of page.events) {
      if (typeof event.seq === "number" && event.seq <= upTo)
        events.push(event);
    }
    if (page.events.length === 0 || page.next_after <= after) break;
    after = page.next_after;
  }
  return { events, from, earlier };
};
