/**
 * @module A session's current episode as rows a fork copies: the source
 * snapshots them in one transaction, copies read the snapshot in bounded
 * chunks and insert each chunk with one statement per table.
 */

/**
 * The tables a fork copies, with every column, for the current episode only.
 * Ids are copied as they are: a copy starts empty, so they cannot collide,
 * and keeping them keeps entry → object links intact. Not copied: the event
 * log (a copy's starts with `forked`), idempotency records, the schedule
 * and tree runs (a copy starts between passes, with no run).
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
    "written"
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
  transcript: ["episode", "idx", "message"],
  tree_data: ["episode", "tasks", "errors"]
} as const satisfies Record<string, readonly string[]>;

export type CopiedTable = keyof typeof COPIED_TABLES;
export const COPIED_TABLE_NAMES = Object.keys(COPIED_TABLES) as [
  CopiedTable,
  ...CopiedTable[]
];

import {
  dropUserSnapshots,
  insertUserRows,
  snapshotUserTables,
  type UserTable,
  userTables
} from "./fork-user-tables";
import { readPages } from "./paged-read";

/** Columns of `fork_rows` a copied row's values go into, in order. */
const SLOTS = ["c0", "c1", "c2", "c3", "c4", "c5", "c6"] as const;

export interface SnapshotInfo {
  snap: string;
  /** Chunks are read after this id… */
  after: number;
  /** …up to and including this one. */
  lastId: number;
  rows: number;
  /** The copied values' sizes (text and numbers as SQLite measures them). */
  bytes: number;
  /** The environment's own tables, copied whole. */
  tables: UserTable[];
}

/**
 * One table's rows in a chunk, each as its column values: of a Roost table
 * in COPIED_TABLES order, or of the environment's table at position `user`
 * of the snapshot's `tables`, in that table's `columns` order.
 */
export type ChunkPart =
  | { table: CopiedTable; rows: SqlStorageValue[][] }
  | { user: number; rows: SqlStorageValue[][] };

/** Roost's rows of a snapshot, read in id order. */
export interface RowsChunk {
  parts: ChunkPart[];
  /** Read the next chunk after this id. */
  next: number;
  done: boolean;
}

/**
 * Copies the committed rows of `episode` into `fork_rows` under `snap`.
 * Call inside transactionSync and between mutations, so the snapshot is
 * exactly one committed step. Values are copied as they are, never
 * re-encoded: a row at SQLite's size limit still fits.
 */
export const takeSnapshot = (
  sql: SqlStorage,
  snap: string,
  episode: number,
  expiresAt: number
): SnapshotInfo => {
  const before = Number(
    sql.exec<{ m: number | null }>("SELECT max(id) AS m FROM fork_rows").one()
      .m ?? 0
  );
  for (const [table, columns] of Object.entries(COPIED_TABLES)) {
    const slots = SLOTS.slice(0, columns.length);
    sql.exec(
      `INSERT INTO fork_rows (tbl, ${slots.join(", ")})
         SELECT ?, ${columns.join(", ")} FROM ${table} WHERE episode = ?`,
      table,
      episode
    );
  }
  const sizes = SLOTS.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 0)`);
  const { n, b, m } = sql
    .exec<{ n: number; b: number | null; m: number | null }>(
      `SELECT count(*) AS n, sum(${sizes.join(" + ")}) AS b, max(id) AS m FROM fork_rows WHERE id > ?`,
      before
    )
    .one();
  const lastId = Number(m ?? before);
  const tables = userTables(sql);
  const user = snapshotUserTables(sql, snap, tables);
  sql.exec(
    "INSERT INTO fork_snapshots (snap, first_id, last_id, user_tables, expires_at) VALUES (?, ?, ?, ?, ?)",
    snap,
    before + 1,
    lastId,
    tables.length,
    expiresAt
  );
  return {
    snap,
    after: before,
    lastId,
    rows: n + user.rows,
    bytes: Number(b ?? 0) + user.bytes,
    tables
  };
};

/** The id range of a snapshot still kept, or undefined once it was dropped or expired. */
export const snapshotRange = (
  sql: SqlStorage,
  snap: string
): { firstId: number; lastId: number; userTables: number } | undefined => {
  const [row] = sql
    .exec<{ first_id: number; last_id: number; user_tables: number }>(
      "SELECT first_id, last_id, user_tables FROM fork_snapshots WHERE snap = ?",
      snap
    )
    .toArray();
  return (
    row && {
      firstId: row.first_id,
      lastId: row.last_id,
      userTables: row.user_tables
    }
  );
};

/**
 * Rows of the snapshot after id `after`, up to about `maxBytes` (always at
 * least one row, so a single large row still travels), grouped by table in
 * id order.
 */
export const readChunk = (
  sql: SqlStorage,
  range: { lastId: number },
  after: number,
  maxBytes: number,
  maxRows: number
): RowsChunk => {
  const read = readPages(
    sql,
    `SELECT id, tbl, ${SLOTS.join(", ")} FROM fork_rows WHERE id <= ? AND id > ? ORDER BY id LIMIT ?`,
    [range.lastId],
    after,
    maxBytes,
    maxRows
  );
  const byTable = new Map<CopiedTable, SqlStorageValue[][]>();
  for (const [, tbl, ...slots] of read.rows) {
    const table = tbl as CopiedTable;
    const row = slots.slice(0, COPIED_TABLES[table].length);
    const rows = byTable.get(table);
    if (rows === undefined) byTable.set(table, [row]);
    else rows.push(row);
  }
  return {
    parts: [...byTable].map(([table, rows]) => ({ table, rows })),
    next: read.next,
    done: read.exhausted || read.next >= range.lastId
  };
};

export const dropSnapshot = (sql: SqlStorage, snap: string): void => {
  const range = snapshotRange(sql, snap);
  if (range === undefined) return;
  sql.exec(
    "DELETE FROM fork_rows WHERE id BETWEEN ? AND ?",
    range.firstId,
    range.lastId
  );
  dropUserSnapshots(sql, snap, range.userTables);
  sql.exec("DELETE FROM fork_snapshots WHERE snap = ?", snap);
};

/** Drops every snapshot past its expiry (a fork whose worker died); returns the next expiry. */
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

/**
 * Inserts a chunk's rows into a copy, one statement per row: each value is
 * bound as it was read, so no row outgrows SQLite's limits on the way.
 */
export const insertChunk = (
  sql: SqlStorage,
  parts: ChunkPart[],
  tables: UserTable[]
): void => {
  for (const part of parts) {
    if ("user" in part) {
      insertUserRows(sql, tables[part.user]!, part.rows);
      continue;
    }
    const { table, rows } = part;
    const columns: readonly string[] = COPIED_TABLES[table];
    const statement = `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
    for (const row of rows) sql.exec(statement, ...row);
  }
};
