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

export interface SnapshotInfo {
  snap: string;
  /** Chunks are read after this id… */
  after: number;
  /** …up to and including this one. */
  lastId: number;
  rows: number;
  bytes: number;
}

/** One table's rows in a chunk: `rows` is a JSON array of row arrays, as SQLite wrote it. */
export interface ChunkPart {
  table: CopiedTable;
  rows: string;
}

export interface Chunk {
  parts: ChunkPart[];
  /** Read the next chunk after this id. */
  next: number;
  done: boolean;
}

/**
 * Copies the committed rows of `episode` into `fork_rows` under `snap`.
 * Call inside transactionSync and between mutations, so the snapshot is
 * exactly one committed step. The rows are serialised by SQLite itself
 * (`json_array`), which is the one encoding a chunk ever needs.
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
    sql.exec(
      `INSERT INTO fork_rows (tbl, row)
         SELECT ?, json_array(${columns.join(", ")}) FROM ${table} WHERE episode = ?`,
      table,
      episode
    );
  }
  const { n, b, m } = sql
    .exec<{ n: number; b: number | null; m: number | null }>(
      "SELECT count(*) AS n, sum(length(CAST(row AS BLOB))) AS b, max(id) AS m FROM fork_rows WHERE id > ?",
      before
    )
    .one();
  const lastId = Number(m ?? before);
  sql.exec(
    "INSERT INTO fork_snapshots (snap, first_id, last_id, expires_at) VALUES (?, ?, ?, ?)",
    snap,
    before + 1,
    lastId,
    expiresAt
  );
  return { snap, after: before, lastId, rows: n, bytes: Number(b ?? 0) };
};

/** The id range of a snapshot still kept, or undefined once it was dropped or expired. */
export const snapshotRange = (
  sql: SqlStorage,
  snap: string
): { firstId: number; lastId: number } | undefined => {
  const [row] = sql
    .exec<{ first_id: number; last_id: number }>(
      "SELECT first_id, last_id FROM fork_snapshots WHERE snap = ?",
      snap
    )
    .toArray();
  return row && { firstId: row.first_id, lastId: row.last_id };
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
): Chunk => {
  const cursor = sql.exec<{ id: number; tbl: CopiedTable; row: string }>(
    "SELECT id, tbl, row FROM fork_rows WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
    after,
    range.lastId,
    maxRows
  );
  const byTable = new Map<CopiedTable, string[]>();
  let next = after;
  let bytes = 0;
  for (const { id, tbl, row } of cursor) {
    const rows = byTable.get(tbl);
    if (rows === undefined) byTable.set(tbl, [row]);
    else rows.push(row);
    next = id;
    // UTF-16 length overcounts nothing that matters: it bounds the message.
    bytes += row.length;
    if (bytes >= maxBytes) break;
  }
  return {
    parts: [...byTable].map(([table, rows]) => ({
      table,
      rows: `[${rows.join(",")}]`
    })),
    next,
    done: next >= range.lastId
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

/** Inserts a chunk's rows into a copy: one statement per table. */
export const insertChunk = (sql: SqlStorage, parts: ChunkPart[]): void => {
  for (const { table, rows: text } of parts) {
    const columns: readonly string[] = COPIED_TABLES[table];
    const values = columns.map((_, i) => `json_extract(value, '$[${i}]')`);
    sql.exec(
      `INSERT INTO ${table} (${columns.join(", ")}) SELECT ${values.join(", ")} FROM json_each(?)`,
      text
    );
  }
};
