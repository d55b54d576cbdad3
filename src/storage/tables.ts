/**
 * @module Every table of a session in its current layout, made on first
 * use. Cloudflare bills each row of `sqlite_schema` a CREATE writes, so a
 * new session makes only its own row's table; the log, state, transcript,
 * store, timers and the rest appear when a statement first needs them (a
 * counter session never makes the store's four tables). Sessions made
 * before this kept every table from the start; schema.ts migrates them.
 */

/** Each group is made whole: its tables are read together (the store's four join). */
const LAYOUT: Record<string, readonly string[]> = {
  session: [
    `CREATE TABLE IF NOT EXISTS session (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      session_id TEXT NOT NULL,
      environment TEXT NOT NULL,
      task TEXT,
      episode INTEGER NOT NULL DEFAULT 0,
      episode_task TEXT,
      steps INTEGER NOT NULL DEFAULT 0,
      reward REAL NOT NULL DEFAULT 0,
      total REAL NOT NULL DEFAULT 0,
      done INTEGER NOT NULL DEFAULT 0,
      truncated INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      inflight TEXT,
      initial_state TEXT,
      episode_tools TEXT,
      as_of INTEGER,
      schema_version INTEGER,
      ttl_due INTEGER,
      task_ref TEXT,
      episode_ref TEXT)`
  ],
  meta: [`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)`],
  events: [
    `CREATE TABLE IF NOT EXISTS events (
      seq INTEGER PRIMARY KEY,
      episode INTEGER NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      first INTEGER,
      session TEXT)`
  ],
  idempotency: [
    `CREATE TABLE IF NOT EXISTS idempotency (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      hash TEXT NOT NULL,
      response TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (scope, key))`,
    "CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at)"
  ],
  schedule: [
    `CREATE TABLE IF NOT EXISTS schedule (
      kind TEXT PRIMARY KEY,
      due_at INTEGER NOT NULL)`
  ],
  store: [
    `CREATE TABLE IF NOT EXISTS store_keys (
      id INTEGER PRIMARY KEY,
      episode INTEGER NOT NULL,
      tool TEXT NOT NULL,
      name TEXT NOT NULL,
      entries INTEGER NOT NULL DEFAULT 0,
      objects INTEGER NOT NULL DEFAULT 0,
      UNIQUE (episode, tool, name))`,
    `CREATE TABLE IF NOT EXISTS store_counters (
      episode INTEGER NOT NULL,
      tool TEXT NOT NULL,
      name TEXT NOT NULL,
      counter INTEGER NOT NULL,
      PRIMARY KEY (episode, tool, name))`,
    `CREATE TABLE IF NOT EXISTS store_entries (
      id INTEGER PRIMARY KEY,
      episode INTEGER NOT NULL,
      key_id INTEGER NOT NULL,
      ord INTEGER NOT NULL,
      metadata TEXT NOT NULL,
      object_count INTEGER NOT NULL,
      written INTEGER NOT NULL,
      payload_type TEXT,
      mapping TEXT)`,
    `CREATE UNIQUE INDEX IF NOT EXISTS store_entries_by_key
      ON store_entries (key_id, ord)`,
    `CREATE INDEX IF NOT EXISTS store_entries_by_write
      ON store_entries (episode, written)`,
    `CREATE TABLE IF NOT EXISTS store_objects (
      entry_id INTEGER NOT NULL,
      i INTEGER NOT NULL,
      episode INTEGER NOT NULL,
      key_id INTEGER NOT NULL,
      ref_id TEXT,
      hash TEXT,
      body TEXT NOT NULL,
      PRIMARY KEY (entry_id, i))`,
    `CREATE INDEX IF NOT EXISTS store_objects_by_hash
      ON store_objects (key_id, hash)`
  ],
  hidden: [
    `CREATE TABLE IF NOT EXISTS hidden (
      episode INTEGER NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (episode, key))`
  ],
  state: [
    `CREATE TABLE IF NOT EXISTS state (
      episode INTEGER NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (episode, key))`
  ],
  transcript_runs: [
    `CREATE TABLE IF NOT EXISTS transcript_runs (
      id INTEGER PRIMARY KEY,
      episode INTEGER NOT NULL,
      last INTEGER NOT NULL,
      body TEXT NOT NULL)`
  ],
  runs: [
    `CREATE TABLE IF NOT EXISTS runs (
      run_id TEXT PRIMARY KEY,
      episode INTEGER NOT NULL,
      prompt TEXT NOT NULL,
      model TEXT NOT NULL,
      state TEXT NOT NULL,
      passes INTEGER NOT NULL DEFAULT 0,
      decisions INTEGER NOT NULL DEFAULT 0,
      cancel_requested INTEGER NOT NULL DEFAULT 0,
      final_text TEXT,
      outcome TEXT,
      error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      chat_id TEXT,
      first_seq INTEGER)`,
    "CREATE INDEX IF NOT EXISTS runs_by_state ON runs (state, created_at)"
  ],
  tree_data: [
    `CREATE TABLE IF NOT EXISTS tree_data (
      episode INTEGER PRIMARY KEY,
      tasks TEXT NOT NULL,
      errors TEXT NOT NULL,
      history TEXT NOT NULL DEFAULT '[]')`
  ],
  fork_snapshots: [
    `CREATE TABLE IF NOT EXISTS fork_snapshots (
      snap TEXT PRIMARY KEY,
      tables INTEGER NOT NULL,
      expires_at INTEGER NOT NULL)`
  ],
  // Without rowid: its key orders an episode's records, so writing one
  // is one row billed, with no index entry beside it (rescore-rows.ts).
  rescore_log: [
    `CREATE TABLE IF NOT EXISTS rescore_log (
      episode INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      part INTEGER NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (episode, seq, part)) WITHOUT ROWID`
  ],
  // A judge's verdicts (rewards/judge.ts), written the moment each comes
  // back, outside the step's commit: a step retried after a crash finds
  // them. A rowid table, so purge.ts deletes them in batches like the rest.
  judge_verdicts: [
    `CREATE TABLE IF NOT EXISTS judge_verdicts (
      episode INTEGER NOT NULL,
      step INTEGER NOT NULL,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      model TEXT NOT NULL,
      value TEXT NOT NULL,
      text TEXT NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (episode, step, path, hash))`
  ],
  // The model gateway's calls (model-call-rows.ts), made on first use: one
  // row a call, its record whole; `next` is what the following call
  // compares its messages and tokens with.
  model_calls: [
    `CREATE TABLE IF NOT EXISTS model_calls (
      episode INTEGER NOT NULL,
      call INTEGER NOT NULL,
      next TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (episode, call))`
  ],
  // Without rowid and index: a task's id is its key, so each write of its
  // row is one row billed (task-rows.ts).
  tasks: [
    `CREATE TABLE IF NOT EXISTS tasks (
      task_id TEXT PRIMARY KEY,
      tool TEXT NOT NULL,
      arguments TEXT NOT NULL,
      status TEXT NOT NULL,
      outcome TEXT,
      redrives INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL) WITHOUT ROWID`
  ]
};

/** Table name → the group that makes it. */
const GROUP_OF: ReadonlyMap<string, readonly string[]> = new Map(
  Object.values(LAYOUT).flatMap((statements) =>
    statements.flatMap((statement) => {
      const table = /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1];
      return table === undefined ? [] : [[table, statements] as const];
    })
  )
);

/** Every table Roost makes: the rest of a session's database is the environment's own (`ctx.sql`). */
export const ROOST_TABLE_NAMES: ReadonlySet<string> = new Set(GROUP_OF.keys());

/**
 * Every table whose rows belong to an episode (an `episode` column), and
 * what becomes of an old episode's rows: `purge`, deleted in batches after
 * a reset (purge.ts; the store's by key, objects before entries before
 * keys); `with log`, kept while the log retains any of the episode's
 * events, deleted in batches once retention trimmed them all (what
 * re-scoring reads beside the log); `fork`, copied by a fork (fork-copy.ts,
 * for the current episode).
 * The schema test fails when a table with an `episode` column is missing
 * here, or when purge.ts or fork-copy.ts disagree with it.
 */
export const EPISODE_TABLES: Readonly<
  Record<
    string,
    {
      purge: "by key" | "batch" | "at reset" | "with log" | "never";
      fork: boolean;
    }
  >
> = {
  store_keys: { purge: "by key", fork: true },
  store_entries: { purge: "by key", fork: true },
  store_objects: { purge: "by key", fork: true },
  store_counters: { purge: "batch", fork: true },
  hidden: { purge: "batch", fork: true },
  state: { purge: "batch", fork: true },
  transcript_runs: { purge: "batch", fork: true },
  // Kept while the episode can be re-scored, so a rescore finds the
  // verdicts its steps were scored with and does not ask again; copied by
  // a fork, whose steps then find the verdicts of the steps it copied.
  judge_verdicts: { purge: "with log", fork: true },
  // What the model saw belongs to the episode, in a copy as in its source.
  model_calls: { purge: "batch", fork: true },
  // One row per episode, dropped by the reset itself (run-rows.ts).
  tree_data: { purge: "at reset", fork: true },
  // A run's record outlives its episode; the log is trimmed by retention.
  runs: { purge: "never", fork: false },
  events: { purge: "never", fork: false },
  // A copy's log starts empty, so it has nothing of its source to re-score.
  rescore_log: { purge: "with log", fork: false }
};

/** Makes `table` (and the rest of its group) in its current layout, if it is not there. */
export const makeTable = (sql: SqlStorage, table: string): void => {
  for (const statement of GROUP_OF.get(table) ?? []) sql.exec(statement);
};

/** Makes every table: a copy being imported (fork-import.ts) fills any of them. */
export const makeAllTables = (sql: SqlStorage): void => {
  for (const statements of Object.values(LAYOUT))
    for (const statement of statements) sql.exec(statement);
};

/** Whether `table` exists, without making it (one read of `sqlite_schema`). */
export const hasTable = (sql: SqlStorage, table: string): boolean =>
  sql
    .exec(
      "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?",
      table
    )
    .toArray().length > 0;

const MISSING = /no such table: (?:main\.)?(\w+)/;

/** Per database, the tables seen to exist: tables are made, never dropped, while an object lives. */
const SEEN = new WeakMap<SqlStorage, Set<string>>();

/**
 * The rows `query` reads from `table`, or none while the table does not
 * exist, without making it: a new episode reads its state and transcript
 * before anything is written, and making two tables to find them empty is
 * five rows billed. Only for a list of rows (an aggregate must answer one
 * row). A table seen once is not looked up again; if the transaction that
 * made it rolled back, the query makes it again, as any statement would.
 */
export const rowsIfPresent = <T extends Record<string, SqlStorageValue>>(
  sql: SqlStorage,
  table: string,
  query: string,
  ...params: SqlStorageValue[]
): Iterable<T> => {
  const seen = SEEN.get(sql) ?? new Set<string>();
  if (!seen.has(table)) {
    if (!hasTable(sql, table)) return [];
    SEEN.set(sql, seen.add(table));
  }
  // The cursor, not an array: a page that stops early reads no further.
  return sql.exec<T>(query, ...params);
};

/**
 * Makes Roost's tables on first use: a statement that fails because one
 * of them is missing makes it (with its group) and runs again. Nothing is
 * cached, so a table made inside a transaction that rolled back is simply
 * made again by the next statement that needs it; a statement that needs
 * no missing table pays nothing. Installed once per object, on its own
 * storage (session/shared.ts); an environment's own tables are untouched.
 */
export const makeTablesOnFirstUse = (sql: SqlStorage): void => {
  const exec = sql.exec;
  const wrapped = (query: string, ...bindings: SqlStorageValue[]) => {
    // A statement can need several missing groups (at most one per try).
    for (let tries = 0; ; tries++) {
      try {
        return exec.call(sql, query, ...bindings);
      } catch (error) {
        const table = MISSING.exec(String(error))?.[1];
        if (tries > 8 || table === undefined || !GROUP_OF.has(table))
          throw error;
        makeTable(sql, table);
      }
    }
  };
  Object.assign(sql, { exec: wrapped });
};
