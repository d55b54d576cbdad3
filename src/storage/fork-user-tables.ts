/**
 * @module An environment's own tables (`ctx.sql`) in a fork: found by what
 * Roost did not create, copied whole into a snapshot table beside the
 * session's rows, and made again in the copy from their own statements.
 */

import { readPages } from "./paged-read";
import { ROOST_TABLE_NAMES } from "./schema";

/** One table an environment created, as a copy needs it. */
export interface UserTable {
  name: string;
  /** Its stored columns, in order (generated columns are recomputed, not copied). */
  columns: string[];
  /** Its CREATE TABLE statement, run before the rows arrive. */
  create: string;
  /** Its indexes and triggers, run after them (a trigger must not fire on copied rows). */
  later: string[];
}

const PREFIX = "fork_user_";

export const quoteName = (name: string): string =>
  `"${name.replaceAll('"', '""')}"`;

type MasterRow = {
  type: string;
  name: string;
  tbl_name: string;
  sql: string;
};

/**
 * Tables Roost did not make, in creation order. Skipped: the platform's
 * (`_cf_…`), SQLite's, snapshot tables, and virtual tables with their
 * shadow tables (`<name>_…`), which cannot be filled row by row.
 */
export const userTables = (sql: SqlStorage): UserTable[] => {
  const entries = sql
    .exec<MasterRow>(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    )
    .toArray();
  const virtual = entries
    .filter((e) => e.type === "table" && /^CREATE\s+VIRTUAL/i.test(e.sql))
    .map((e) => e.name);
  const skipped = (name: string): boolean =>
    ROOST_TABLE_NAMES.has(name) ||
    name.startsWith("_cf_") ||
    name.startsWith("sqlite_") ||
    name.startsWith(PREFIX) ||
    virtual.some((v) => name === v || name.startsWith(`${v}_`));
  return entries
    .filter((e) => e.type === "table" && !skipped(e.name))
    .map((table) => ({
      name: table.name,
      columns: sql
        .exec<{ name: string; hidden: number }>(
          "SELECT name, hidden FROM pragma_table_xinfo(?)",
          table.name
        )
        .toArray()
        .filter((c) => c.hidden === 0)
        .map((c) => c.name),
      create: table.sql,
      later: entries
        .filter(
          (e) =>
            (e.type === "index" || e.type === "trigger") &&
            e.tbl_name === table.name
        )
        .map((e) => e.sql)
    }));
};

/** The snapshot table of user table `position` in snapshot `snap`. */
export const snapshotTable = (snap: string, position: number): string =>
  `${PREFIX}${snap.replace(/[^A-Za-z0-9]/g, "")}_${position}`;

/** Copies every user table as it stands; call inside the snapshot's transaction. */
export const snapshotUserTables = (
  sql: SqlStorage,
  snap: string,
  tables: UserTable[]
): { rows: number; bytes: number } => {
  let rows = 0;
  let bytes = 0;
  for (const [position, table] of tables.entries()) {
    const copy = quoteName(snapshotTable(snap, position));
    const columns = table.columns.map(quoteName);
    sql.exec(
      `CREATE TABLE ${copy} AS SELECT ${columns.join(", ")} FROM ${quoteName(table.name)}`
    );
    const sizes = columns.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 0)`);
    const { n, b } = sql
      .exec<{ n: number; b: number | null }>(
        `SELECT count(*) AS n, sum(${sizes.join(" + ") || "0"}) AS b FROM ${copy}`
      )
      .one();
    rows += n;
    bytes += Number(b ?? 0);
  }
  return { rows, bytes };
};

/** Rows of one snapshot table after `after` (its rowid), up to about `maxBytes`. */
export const readUserRows = (
  sql: SqlStorage,
  snap: string,
  position: number,
  after: number,
  maxBytes: number,
  maxRows: number
): { rows: SqlStorageValue[][]; next: number; exhausted: boolean } => {
  const read = readPages(
    sql,
    `SELECT rowid, * FROM ${quoteName(snapshotTable(snap, position))} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    [],
    after,
    maxBytes,
    maxRows
  );
  return { ...read, rows: read.rows.map(([, ...values]) => values) };
};

export const dropUserSnapshots = (
  sql: SqlStorage,
  snap: string,
  count: number
): void => {
  for (let position = 0; position < count; position++)
    sql.exec(
      `DROP TABLE IF EXISTS ${quoteName(snapshotTable(snap, position))}`
    );
};

/** In a copy: a user table's rows, one statement per row (DO SQLite binds at most 100 values). */
export const insertUserRows = (
  sql: SqlStorage,
  table: UserTable,
  rows: SqlStorageValue[][]
): void => {
  const statement = `INSERT INTO ${quoteName(table.name)} (${table.columns.map(quoteName).join(", ")}) VALUES (${table.columns.map(() => "?").join(", ")})`;
  for (const row of rows) sql.exec(statement, ...row);
};
