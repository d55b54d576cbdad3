/** @module The snapshot tables of a fork at a past step: its scratch episode renumbered, and the history a branchable environment's copy carries. */

import {
  COPIED_TABLES,
  quoteName,
  type SnapshotInfo,
  type SnapshotTable,
  slots,
  snapshotTable
} from "../../storage/fork-copy";
import { hasTable } from "../../storage/tables";

/**
 * Gives a snapshot's Roost rows the episode `episode`: a fork at a past
 * step rebuilds that step under a scratch episode of the source's tables
 * (rewind.ts) and snapshots it from there.
 */
export const renumberSnapshot = (
  sql: SqlStorage,
  snap: string,
  tables: readonly SnapshotTable[],
  from: number,
  episode: number
): void => {
  for (const [position, table] of tables.entries()) {
    const at = table.columns.indexOf("episode");
    if (table.create !== undefined || at < 0) continue;
    // A transcript run's id counts from its episode's (state-backend.ts).
    const id =
      table.name === "transcript_runs"
        ? `, v${table.columns.indexOf("id")} = v${table.columns.indexOf("id")} + ? * 4294967296`
        : "";
    sql.exec(
      `UPDATE ${snapshotTable(snap, position)} SET v${at} = ?${id}`,
      episode,
      ...(id === "" ? [] : [episode - from])
    );
  }
};

/** Deletes a scratch episode's rows from every table a fork copies. */
export const dropEpisodeRows = (sql: SqlStorage, episode: number): void => {
  for (const name of Object.keys(COPIED_TABLES))
    if (hasTable(sql, name))
      sql.exec(`DELETE FROM ${quoteName(name)} WHERE episode = ?`, episode);
};

/** The tables of an episode's history, for a copy that may be forked at a past step again. */
const HISTORY: Readonly<Record<string, readonly string[]>> = {
  events: ["seq", "episode", "type", "data", "bytes", "first", "session"],
  rescore_log: ["episode", "seq", "part", "body"]
};

/**
 * Adds to a snapshot the history a branchable environment's copy needs to
 * be forked at a past step itself: the episode's events up to `upTo`, and
 * what its commits recorded beside them. A copy's log then starts with
 * the episode's reset, not with its `forked` event.
 */
export const snapshotHistory = (
  sql: SqlStorage,
  snap: string,
  info: SnapshotInfo,
  episode: number,
  upTo: number
): SnapshotInfo => {
  const tables = [...info.tables];
  for (const [name, columns] of Object.entries(HISTORY)) {
    if (!hasTable(sql, name)) continue;
    const copy = snapshotTable(snap, tables.length);
    const v = slots(columns.length);
    sql.exec(
      `CREATE TABLE ${copy} (fork_seq INTEGER PRIMARY KEY, ${v.join(", ")})`
    );
    sql.exec(
      `INSERT INTO ${copy} (${v.join(", ")})
       SELECT ${columns.map(quoteName).join(", ")} FROM ${name}
       WHERE episode = ? AND seq <= ? ORDER BY ${name === "events" ? "seq" : "seq, part"}`,
      episode,
      upTo
    );
    tables.push({ name, columns: [...columns] });
  }
  sql.exec(
    "UPDATE fork_snapshots SET tables = ? WHERE snap = ?",
    tables.length,
    snap
  );
  return { ...info, tables };
};
