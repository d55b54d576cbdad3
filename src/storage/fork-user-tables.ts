/**
 * @module An environment's own tables (`ctx.sql`), as a fork finds them:
 * every ordinary table Roost did not create, with its statements.
 */

import { ROOST_TABLE_NAMES } from "./tables";

/** One table an environment created. */
export interface UserTable {
  name: string;
  /** Its stored columns, in order (generated columns are recomputed, not copied). */
  columns: string[];
  /** Its CREATE TABLE statement. */
  create: string;
  /** Its indexes and triggers (made after the rows, so a trigger does not fire on copied ones). */
  later: string[];
  withoutRowid: boolean;
}

/** Tables Roost makes at run time (fork snapshots) start with this. */
export const ROOST_PREFIX = "_roost_";

type ListedTable = { name: string; type: string; wr: number };
type MasterRow = { type: string; tbl_name: string; sql: string };

/**
 * Ordinary tables Roost did not make. Left out: the platform's (`_cf_…`),
 * SQLite's, snapshot tables, and virtual tables with their shadow tables,
 * which cannot be filled row by row.
 */
export const userTables = (sql: SqlStorage): UserTable[] => {
  const listed = sql
    .exec<ListedTable>(
      "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table'"
    )
    .toArray()
    .filter(
      ({ name }) =>
        !ROOST_TABLE_NAMES.has(name) &&
        !name.startsWith("_cf_") &&
        !name.startsWith(ROOST_PREFIX) &&
        !name.startsWith("sqlite_")
    );
  const master = sql
    .exec<MasterRow>(
      "SELECT type, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    )
    .toArray();
  return master
    .filter(
      (m) => m.type === "table" && listed.some((t) => t.name === m.tbl_name)
    )
    .map((m) => ({
      name: m.tbl_name,
      columns: sql
        .exec<{ name: string; hidden: number }>(
          "SELECT name, hidden FROM pragma_table_xinfo(?)",
          m.tbl_name
        )
        .toArray()
        .filter((c) => c.hidden === 0)
        .map((c) => c.name),
      create: m.sql,
      later: master
        .filter(
          (e) =>
            (e.type === "index" || e.type === "trigger") &&
            e.tbl_name === m.tbl_name
        )
        .map((e) => e.sql),
      withoutRowid: listed.find((t) => t.name === m.tbl_name)!.wr === 1
    }));
};
