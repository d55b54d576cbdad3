/**
 * @module State values folded into the event log. A commit that folds the
 * session row's step fields (session-row.ts) carries the state values it
 * set in the same fold, so a step writes no row of the `state` table: that
 * table is a checkpoint, written with the session table, and a key's value
 * is its newest fold since then, else the table's. At most MAX_FOLDS
 * folds follow a checkpoint, so a cold read reads that many rows of the
 * log at most (and the few rows between them no commit wrote).
 */

import { EpisodeRows } from "./episode-rows";
import { type Fold, type SessionRow, writeEpisode } from "./session-row";

/**
 * The most a commit folds of state, as characters of its keys and JSON
 * texts as the fold holds them (escaped). The fold shares the event-log
 * row with up to 1.9 MB of events (row-text.ts): 16 Ki characters are at
 * most 48 KB of UTF-8, within what that leaves of a row's 2 MB. A commit
 * that sets more writes the table instead.
 */
export const MAX_FOLDED_STATE_CHARS = 16 * 1024;

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

/** Whether a commit's state values are small enough to fold. */
export const fitsFold = (changes: ReadonlyMap<string, string>): boolean => {
  let chars = 0;
  for (const [key, text] of changes) {
    // Escaping only lengthens: a long text is refused before it is escaped.
    if (chars + key.length + text.length > MAX_FOLDED_STATE_CHARS) return false;
    chars += JSON.stringify([key, text]).length + 1;
    if (chars > MAX_FOLDED_STATE_CHARS) return false;
  }
  return true;
};

/**
 * The state values the folds set, newest last, keyed in the order keys
 * were first set. One statement, walking the log's primary key back from
 * its end over `count` folds at most.
 */
export const readFoldedState = (
  sql: SqlStorage,
  folds: StateFolds
): Map<string, string> => {
  const values = new Map<string, string>();
  if (folds.count <= 0) return values;
  const found: Fold[] = [];
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
  for (const fold of found.reverse())
    for (const [key, text] of fold.state ?? []) values.set(key, text);
  return values;
};

/**
 * Writes into the state table the values folded since it was written and
 * then `changes`, keys it lacks in the order they were first set, so its
 * rowid order stays that order. The table then holds what a read gives;
 * the folds may stay (reading them again gives the same values).
 */
export const writeFoldedState = (
  sql: SqlStorage,
  folds: StateFolds,
  episode: number,
  changes: ReadonlyMap<string, string> = new Map()
): void => {
  const values =
    folds.episode === episode ? readFoldedState(sql, folds) : new Map();
  for (const [key, text] of changes) values.set(key, text);
  if (values.size === 0) return;
  const rows = new EpisodeRows(sql, "state", episode);
  for (const [key, text] of values) rows.put(key, text);
};

/**
 * The checkpoint: the state values folded since the tables were written
 * (`folds`) and the commit's own `changes` go into the state table, and
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
  writeFoldedState(sql, folds, row.episode, changes);
  writeEpisode(sql, row, asOf);
};
