/**
 * @module State values and messages folded into the event log. A commit
 * that folds the session row's step fields (session-row.ts) carries the
 * state values it set and the messages it appended in the same fold, so a
 * step writes no row of the `state` or `transcript_runs` tables. The
 * state table is a checkpoint, written with the session table, and a
 * key's value is its newest fold since then, else the table's. The
 * transcript table holds a prefix of the messages and the folds the rest
 * (a message is read from the table when the table holds its index): a
 * commit whose messages do not fit its fold writes the folded ones the
 * table lacks and its own, and every checkpoint writes those the folds
 * hold. At most MAX_FOLDS folds follow a checkpoint, so a cold read
 * reads that many rows of the log at most (and the few rows between them
 * no commit wrote).
 */

import type { Staged } from "./episode-parts";
import { EpisodeRows } from "./episode-rows";
import type { EventLog, PendingEvent } from "./event-log";
import {
  type Fold,
  foldOf,
  MAX_FOLDS,
  type SessionRow,
  writeEpisode
} from "./session-row";
import { SqliteTranscriptBackend } from "./state-backend";

/**
 * The most a commit folds of state and messages, as characters of its
 * keys and JSON texts as the fold holds them (escaped). The fold shares
 * the event-log row with up to 1.9 MB of events (row-text.ts): 16 Ki
 * characters are at most 48 KB of UTF-8, within what that leaves of a
 * row's 2 MB. A commit that sets more state writes the tables instead;
 * one that appends more messages writes them to the transcript table.
 */
export const MAX_FOLDED_STATE_CHARS = 16 * 1024;

/** Messages a commit appended: their JSON texts, the first at index `from`. */
export interface FoldedMessages {
  from: number;
  texts: string[];
}

/** The folds a read of one episode's state must look at: `count` of them, after seq `after`. */
export interface StateFolds {
  episode: number;
  after: number;
  count: number;
}

/** Where the committed row says the state table stands. */
export const foldsOf = (row: SessionRow): StateFolds => ({
  episode: row.episode,
  after: row.asOf ?? 0,
  count: row.folds ?? 0
});

/**
 * Whether a commit's state values (and, given them, its messages too)
 * are small enough to fold.
 */
export const fitsFold = (
  changes: ReadonlyMap<string, string>,
  messages?: FoldedMessages
): boolean => {
  let chars = 0;
  const add = (texts: readonly string[]): boolean => {
    // Escaping only lengthens: long texts are refused before they are escaped.
    let raw = chars;
    for (const text of texts) raw += text.length;
    if (raw > MAX_FOLDED_STATE_CHARS) return false;
    chars += JSON.stringify(texts).length + 1;
    return chars <= MAX_FOLDED_STATE_CHARS;
  };
  for (const [key, text] of changes) if (!add([key, text])) return false;
  return messages === undefined || add(messages.texts);
};

/**
 * The folds since the table was written, oldest first. One statement,
 * walking the log's primary key back from its end over `count` folds at
 * most.
 */
export const readFolds = (sql: SqlStorage, folds: StateFolds): Fold[] => {
  const found: Fold[] = [];
  if (folds.count <= 0) return found;
  const rows = sql.exec<{ session: string }>(
    "SELECT session FROM events WHERE seq > ? AND session IS NOT NULL ORDER BY seq DESC LIMIT ?",
    folds.after,
    folds.count
  );
  for (const { session } of rows) {
    const fold = JSON.parse(session) as Fold;
    // An earlier version's fold carries no state (it wrote the table), nor
    // does one before it; a reset writes the table, so no fold of another
    // episode follows it.
    if (fold.n === undefined || fold.episode !== folds.episode) break;
    found.push(fold);
  }
  return found.reverse();
};

/** The state values the folds set, newest last, keyed in the order keys were first set. */
export const readFoldedState = (
  sql: SqlStorage,
  folds: StateFolds
): Map<string, string> => stateOf(readFolds(sql, folds));

const stateOf = (read: readonly Fold[]): Map<string, string> => {
  const values = new Map<string, string>();
  for (const fold of read)
    for (const [key, text] of fold.state ?? []) values.set(key, text);
  return values;
};

/**
 * Writes into the state table the values folded since it was written and
 * then `changes`, keys it lacks in the order they were first set, so its
 * rowid order stays that order, and into the transcript table the folded
 * messages it lacks. The tables then hold what a read gives; the folds
 * may stay (reading them again gives the same values and messages).
 */
export const writeFolded = (
  sql: SqlStorage,
  folds: StateFolds,
  episode: number,
  changes: ReadonlyMap<string, string> = new Map()
): void => {
  // Read once, for the state values and the messages both.
  const read = folds.episode === episode ? readFolds(sql, folds) : [];
  const values = stateOf(read);
  for (const [key, text] of changes) values.set(key, text);
  if (values.size > 0) {
    const rows = new EpisodeRows(sql, "state", episode);
    for (const [key, text] of values) rows.put(key, text);
  }
  new SqliteTranscriptBackend(sql, episode, undefined, {
    folds,
    read
  }).writeFolded();
};

/**
 * The checkpoint: the state values folded since the tables were written
 * (`folds`) and the commit's own `changes` go into the state table, the
 * folded messages into the transcript table, and
 * the session row into its table as of seq `asOf`. Synchronous: inside
 * the commit's transaction.
 */
export const checkpoint = (
  sql: SqlStorage,
  row: SessionRow,
  folds: StateFolds,
  changes: ReadonlyMap<string, string>,
  asOf: number
): void => {
  writeFolded(sql, folds, row.episode, changes);
  writeEpisode(sql, row, asOf);
};

/**
 * A commit's last writes, inside its transaction: its events as one row
 * (or what is left of them), carrying its state values and messages and
 * the step's changes to the session row, unless the tables must be
 * written: a written in-flight mark (`marked`) must be cleared, and a
 * cold read reads every fold since the tables. A reset, which changes
 * more of the row than a step does, writes the session table as of just
 * before its own log row, whose fold is the new episode's first. The log
 * is written last: a write that throws before it leaves its events
 * pending, as a failed flush does.
 */
export const commitRow = (
  sql: SqlStorage,
  log: EventLog,
  staged: Pick<Staged, "stateChanges" | "messageChanges" | "writeMessages">,
  commit: {
    committed: SessionRow;
    row: SessionRow;
    reset: boolean;
    marked: boolean;
  }
): { written: PendingEvent[]; folded: boolean } => {
  const { committed, row, reset } = commit;
  const changes = staged.stateChanges();
  const messages = staged.messageChanges();
  const folds = reset ? 0 : (committed.folds ?? 0);
  const folded =
    !commit.marked && log.pending && folds < MAX_FOLDS && fitsFold(changes);
  // Messages too many to fold go to their table; state may fold still.
  const foldsMessages =
    folded && messages !== undefined && fitsFold(changes, messages);
  if (!foldsMessages) staged.writeMessages();
  if (reset || !folded)
    // The tables, which clears the in-flight mark too: as of this
    // commit's last event, or a folded reset's seq before its own.
    checkpoint(
      sql,
      row,
      foldsOf(committed),
      folded ? new Map() : changes,
      folded ? log.lastSeq : log.lastAssigned
    );
  if (folded) row.folds = folds + 1;
  const written = log.flush(
    folded
      ? foldOf(row, changes, foldsMessages ? messages : undefined)
      : undefined
  );
  return { written, folded };
};
