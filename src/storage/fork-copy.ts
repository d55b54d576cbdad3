/**
 * @module A session as a fork copies it. In one transaction the source
 * copies each table's rows — Roost's for the current episode, the
 * environment's own whole — into a snapshot table of its own; copies then
 * read the snapshot a bounded chunk at a time while the source goes on
 * serving, and insert each value as it was read, never re-encoded.
 */

import { ROOST_PREFIX, type UserTable, userTables } from "./fork-user-tables";
import { hasTable } from "./tables";

/**
 * Roost's tables a fork copies, with every column, for the current episode
 * only. Ids are copied as they are: a copy starts empty, so they cannot
 * collide, and keeping them keeps entry → object links intact. Not copied:
 * the event log (a copy's starts with `forked`), idempotency records, the
 * schedule and tree runs (a copy starts between passes, with no run).
 */
export const COPIED_TABLES = {
  store_keys: ["id", "episode", "tool", "name", "entries", "objects"],
  store_counters: ["episode", "tool", "name", "counter"],
  store_entries: [
    "id",
    "episode",
    "key_id",
    "ord",
    "metadata",
    "object_count",
    "written",
    "payload_type",
    "mapping"
  ],
  store_objects: [
    "entry_id",
    "i",
    "episode",
    "key_id",
    "ref_id",
    "hash",
    "body"
  ],
  hidden: ["episode", "key", "value"],
  state: ["episode", "key", "value"],
  transcript_runs: ["id", "episode", "last", "body"],
  tree_data: ["episode", "tasks", "errors", "history"],
  model_calls: ["episode", "call", "next", "body"],
  judge_verdicts: [
    "episode",
    "step",
    "path",
    "hash",
    "model",
    "value",
    "text",
    "at"
  ]
} as const satisfies Record<string, readonly string[]>;

/**
 * A table of the snapshot, as the copy needs it: where its rows go, in
 * which column order, and — for the environment's own tables — how to make
 * it (`create` before the rows, `later` its indexes and triggers after).
 */
export interface SnapshotTable {
  name: string;
  columns: string[];
  create?: string;
  later?: string[];
}

export interface SnapshotInfo {
  tables: SnapshotTable[];
  /** Rows and bytes copied, the hidden store and judges' verdicts left out (grade-only: their size is not every client's to know). */
  rows: number;
  bytes: number;
}

/** Snapshot tables start with this; no environment table is taken for one. */
export const SNAPSHOT_PREFIX = `${ROOST_PREFIX}fork_`;

export const quoteName = (name: string): string =>
  `"${name.replaceAll('"', '""')}"`;

export const snapshotTable = (snap: string, position: number): string =>
  quoteName(
    `${SNAPSHOT_PREFIX}${snap.replace(/[^A-Za-z0-9]/g, "")}_${position}`
  );

export const slots = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `v${i}`);

const sizes = (columns: string[]): string =>
  columns.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 0)`).join(" + ") ||
  "0";

/** What to copy and from where: Roost's tables by episode, then the environment's. */
const sources = (
  sql: SqlStorage
): { table: SnapshotTable; from: string; secret: boolean }[] => [
  // A table the source never made holds nothing, and asking would make it
  // (tables.ts); the copy makes its own on first use.
  ...Object.entries(COPIED_TABLES)
    .filter(([name]) => hasTable(sql, name))
    .map(([name, columns]) => ({
      table: { name, columns: [...columns] },
      from: `${quoteName(name)} WHERE episode = ? ORDER BY rowid`,
      secret: name === "hidden" || name === "judge_verdicts"
    })),
  ...userTables(sql).map((t: UserTable) => ({
    table: {
      name: t.name,
      columns: t.columns,
      create: t.create,
      later: t.later
    },
    // Rowid order keeps keys() and scans in the order the source had them.
    from: `${quoteName(t.name)}${t.withoutRowid ? "" : " ORDER BY rowid"}`,
    secret: false
  }))
];

/**
 * Copies the session into snapshot tables under `snap`. Call inside
 * transactionSync and between mutations, so the snapshot is exactly one
 * committed step.
 */
export const takeSnapshot = (
  sql: SqlStorage,
  snap: string,
  episode: number,
  expiresAt: number
): SnapshotInfo => {
  const all = sources(sql);
  let rows = 0;
  let bytes = 0;
  for (const [position, { table, from, secret }] of all.entries()) {
    const copy = snapshotTable(snap, position);
    const v = slots(table.columns.length);
    sql.exec(
      `CREATE TABLE ${copy} (fork_seq INTEGER PRIMARY KEY, ${v.join(", ")})`
    );
    const columns = table.columns.map(quoteName).join(", ");
    const select = `SELECT ${columns} FROM ${from}`;
    if (table.create === undefined)
      sql.exec(`INSERT INTO ${copy} (${v.join(", ")}) ${select}`, episode);
    else sql.exec(`INSERT INTO ${copy} (${v.join(", ")}) ${select}`);
    if (secret) continue;
    const counted = sql
      .exec<{ n: number; b: number | null }>(
        `SELECT count(*) AS n, sum(${sizes(v)}) AS b FROM ${copy}`
      )
      .one();
    rows += counted.n;
    bytes += Number(counted.b ?? 0);
  }
  sql.exec(
    "INSERT INTO fork_snapshots (snap, tables, expires_at) VALUES (?, ?, ?)",
    snap,
    all.length,
    expiresAt
  );
  return { tables: all.map((s) => s.table), rows, bytes };
};

/** How many tables a snapshot still kept has, or undefined once it was dropped or expired. */
export const snapshotSize = (
  sql: SqlStorage,
  snap: string
): number | undefined =>
  sql
    .exec<{ tables: number }>(
      "SELECT tables FROM fork_snapshots WHERE snap = ?",
      snap
    )
    .toArray()[0]?.tables;

/** A fork still reading keeps its snapshot: the expiry counts from its last chunk. */
export const touchSnapshot = (
  sql: SqlStorage,
  snap: string,
  expiresAt: number
): void => {
  sql.exec(
    "UPDATE fork_snapshots SET expires_at = ? WHERE snap = ?",
    expiresAt,
    snap
  );
};

/** A value's size as a chunk counts it: text and blobs by length, numbers as 8. */
const sizeOf = (value: SqlStorageValue): number =>
  typeof value === "string"
    ? value.length
    : value instanceof ArrayBuffer
      ? value.byteLength
      : 8;

/** Rows read per statement: each page is read whole, so no statement stays open on a table a later DROP needs. */
const PAGE_ROWS = 256;

/**
 * Reads `[key, ...values]` rows page by page after `after` until about
 * `maxBytes` or `maxRows` were read; `query` takes (after, limit) and
 * orders by its first column.
 */
const readPages = (
  sql: SqlStorage,
  query: string,
  after: number,
  maxBytes: number,
  maxRows: number
): { rows: SqlStorageValue[][]; next: number; exhausted: boolean } => {
  const rows: SqlStorageValue[][] = [];
  let next = after;
  let bytes = 0;
  for (;;) {
    const limit = Math.min(PAGE_ROWS, maxRows - rows.length);
    // Read whole (the rest of a page is read again next time, if wanted).
    const page = [...sql.exec(query, next, limit).raw()];
    for (const row of page) {
      rows.push(row);
      next = Number(row[0]);
      for (const value of row) bytes += sizeOf(value);
      if (bytes >= maxBytes || rows.length >= maxRows)
        return { rows, next, exhausted: false };
    }
    if (page.length < limit) return { rows, next, exhausted: true };
  }
};

/**
 * Rows of snapshot table `position` after `after` (its own sequence), up
 * to about `maxBytes` (always at least one row, so a single large row
 * still travels), each as the values of the table's columns.
 */
export const readSnapshot = (
  sql: SqlStorage,
  snap: string,
  position: number,
  after: number,
  maxBytes: number,
  maxRows: number
): { rows: SqlStorageValue[][]; next: number; exhausted: boolean } => {
  const read = readPages(
    sql,
    `SELECT * FROM ${snapshotTable(snap, position)} WHERE fork_seq > ? ORDER BY fork_seq LIMIT ?`,
    after,
    maxBytes,
    maxRows
  );
  return { ...read, rows: read.rows.map(([, ...values]) => values) };
};

export const dropSnapshot = (sql: SqlStorage, snap: string): void => {
  const tables = snapshotSize(sql, snap);
  if (tables === undefined) return;
  for (let position = 0; position < tables; position++)
    sql.exec(`DROP TABLE IF EXISTS ${snapshotTable(snap, position)}`);
  sql.exec("DELETE FROM fork_snapshots WHERE snap = ?", snap);
};

/** Drops every snapshot past its expiry (a fork whose driver died); returns the next expiry. */
export const dropExpiredSnapshots = (
  sql: SqlStorage,
  now: number
): number | undefined => {
  const expired = sql
    .exec<{ snap: string }>(
      "SELECT snap FROM fork_snapshots WHERE expires_at <= ?",
      now
    )
    .toArray();
  for (const { snap } of expired) dropSnapshot(sql, snap);
  const v = sql
    .exec<{ t: number | null }>(
      "SELECT min(expires_at) AS t FROM fork_snapshots"
    )
    .one().t;
  return v ?? undefined;
};

/** In a copy: rows of one table, one statement per row (DO SQLite binds at most 100 values a statement). */
export const insertRows = (
  sql: SqlStorage,
  table: SnapshotTable,
  rows: SqlStorageValue[][]
): void => {
  const statement = `INSERT INTO ${quoteName(table.name)} (${table.columns.map(quoteName).join(", ")}) VALUES (${table.columns.map(() => "?").join(", ")})`;
  for (const row of rows) sql.exec(statement, ...row);
};
