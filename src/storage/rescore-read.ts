/** @module Reading what re-scoring replays: an episode's retained events and its records, synchronously, in one turn. */

import type { LoggedEvent } from "../environment/replay-parts";
import type { LoggedEpisode } from "../environment/rescore";
import { utf8Length } from "../json";
import { ReadBudget } from "../protocol/read-budget";
import type { EventLog } from "./event-log";
import { episodeRecords, recordBytes, recordedResets } from "./rescore-rows";
import { hasTable } from "./tables";

/** What a replay reads of an event; the rest (tool starts, updates) it skips. */
const REPLAYED = new Set([
  "state.changed",
  "message",
  "result",
  "store.changed",
  "step",
  "step.aborted"
]);

/**
 * Record text one episode may have to be re-scored: the isolate holds it
 * whole (parsed) beside the events while its rubric runs.
 */
export const RESCORE_RECORD_BYTES = 16 * 1024 * 1024;

/** Rows of the log read per statement while walking an episode. */
const PAGE = 1000;

/**
 * The episodes re-scoring can replay: those whose reset the log still
 * holds (all their events after it are held too: the log is trimmed
 * oldest first), with the seq their reset event has, oldest first.
 */
export const retainedEpisodes = (
  sql: SqlStorage,
  log: EventLog
): { episode: number; seq: number }[] =>
  hasTable(sql, "rescore_log") ? recordedResets(sql, log.oldestSeq) : [];

/**
 * One episode's events from its reset to `until` (exclusive: the next
 * episode's reset, or past the last durable seq), and its records. Read
 * without yielding, so no commit lands between the events and the
 * records; `bytes` is the event text read, for the caller's budget.
 */
export const readEpisode = (
  sql: SqlStorage,
  log: EventLog,
  from: { episode: number; seq: number },
  until: number
): { logged: LoggedEpisode; bytes: number } => {
  const events: LoggedEvent[] = [];
  let bytes = 0;
  let after = from.seq - 1;
  for (;;) {
    // The page's budget is the log's own cap; what counts is kept here.
    const page = log.page(after, PAGE, new ReadBudget(Number.MAX_SAFE_INTEGER));
    if (page.length === 0) break;
    for (const { seq, text } of page) {
      if (seq >= until) return done();
      bytes += utf8Length(text);
      const event = JSON.parse(text) as LoggedEvent & { episode: number };
      // Another episode's events inside this one's range are a reset that
      // failed (its frames, then step.aborted): skipped, not an end, since
      // the episode went on after it.
      if (event.episode !== from.episode) continue;
      if (REPLAYED.has(event.type)) events.push(event);
    }
    after = page.at(-1)!.seq;
  }
  return done();

  function done() {
    // Records carry whole hidden values: sized before they are read, so an
    // episode that kept megabytes each step is refused, not loaded.
    const size = recordBytes(sql, from.episode);
    const tooLarge = size > RESCORE_RECORD_BYTES;
    return {
      logged: {
        episode: from.episode,
        events,
        records: tooLarge ? [] : episodeRecords(sql, from.episode),
        ...(tooLarge ? { tooLarge: size } : {})
      },
      bytes: bytes + size
    };
  }
};
