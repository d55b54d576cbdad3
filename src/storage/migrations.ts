/** @module Every table of a session, by schema version: the statements each version added, in order. */

import { TASK_REF_COLUMNS } from "./session-row";

// Every data table carries `episode`, so a reset only bumps a number and the
// old rows go later, in bounded batches (purge.ts).
const STORE_TABLES = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)`,
  `CREATE TABLE IF NOT EXISTS store_keys (
    id INTEGER PRIMARY KEY,
    episode INTEGER NOT NULL,
    tool TEXT NOT NULL,
    name TEXT NOT NULL,
    entries INTEGER NOT NULL DEFAULT 0,
    objects INTEGER NOT NULL DEFAULT 0,
    UNIQUE (episode, tool, name))`,
  // Apart from keys: a step that streamed ids and then aborted leaves its
  // counter raised for a key that was never written.
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
    written INTEGER NOT NULL)`,
  `CREATE UNIQUE INDEX IF NOT EXISTS store_entries_by_key
    ON store_entries (key_id, ord)`,
  `CREATE INDEX IF NOT EXISTS store_entries_by_write
    ON store_entries (episode, written)`,
  // A rowid table, as SQLite advises for rows this large. `episode` is not
  // read (a key's id already implies it) but keeps every row attributable.
  `CREATE TABLE IF NOT EXISTS store_objects (
    entry_id INTEGER NOT NULL,
    i INTEGER NOT NULL,
    episode INTEGER NOT NULL,
    key_id INTEGER NOT NULL,
    ref_id TEXT,
    hash TEXT,
    body TEXT NOT NULL,
    PRIMARY KEY (entry_id, i))`,
  // Serves the [repeat] lookup and, by its key_id prefix, clearing and purging a key.
  `CREATE INDEX IF NOT EXISTS store_objects_by_hash
    ON store_objects (key_id, hash)`,
  `CREATE TABLE IF NOT EXISTS hidden (
    episode INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (episode, key))`,
  `CREATE TABLE IF NOT EXISTS state (
    episode INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (episode, key))`,
  `CREATE TABLE IF NOT EXISTS transcript (
    episode INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (episode, idx))`
];

/** The session's own tables: its row, event log, idempotency records and schedule. */
const SESSION_TABLES = [
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
    inflight TEXT)`,
  `CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    episode INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    bytes INTEGER NOT NULL)`,
  // Byte-based retention sums `bytes` without reading the events themselves.
  "CREATE INDEX IF NOT EXISTS events_bytes ON events (seq, bytes)",
  `CREATE TABLE IF NOT EXISTS idempotency (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    hash TEXT NOT NULL,
    response TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key))`,
  "CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at)",
  `CREATE TABLE IF NOT EXISTS schedule (
    kind TEXT PRIMARY KEY,
    due_at INTEGER NOT NULL)`
];

/** Decision-tree runs and the tree's per-episode task and error records. */
const RUN_TABLES = [
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
    updated_at INTEGER NOT NULL)`,
  "CREATE INDEX IF NOT EXISTS runs_by_state ON runs (state, created_at)",
  `CREATE TABLE IF NOT EXISTS tree_data (
    episode INTEGER PRIMARY KEY,
    tasks TEXT NOT NULL,
    errors TEXT NOT NULL)`
];

/**
 * Forks (fork-copy.ts): one row per snapshot a source keeps while copies
 * read it; its rows live in `_roost_fork_<snap>_<n>` tables, one per table
 * copied, dropped with the snapshot.
 */
const FORK_TABLES = [
  `CREATE TABLE IF NOT EXISTS fork_snapshots (
    snap TEXT PRIMARY KEY,
    tables INTEGER NOT NULL,
    expires_at INTEGER NOT NULL)`
];

/**
 * What each version adds, in order: `MIGRATIONS[v - 1]` takes a database
 * from version v - 1 to v. Every statement is idempotent (IF NOT EXISTS;
 * an added column is skipped when it is there; rows are copied only from
 * a table still there), so a
 * version 1 session whose run tables were already made on its first run
 * (version 1 created them lazily) migrates like any other. A new column is
 * added by its migration only, never also in a CREATE above: the migration
 * tests build each old version from these lists.
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
  [...STORE_TABLES, ...SESSION_TABLES],
  RUN_TABLES,
  FORK_TABLES,
  // The conversation history a tree reads, kept apart from the transcript
  // (Elysia's: prompts and replies; reset observations are not turns).
  // Sessions from before start it empty. Run once, as each version is.
  ["ALTER TABLE tree_data ADD COLUMN history TEXT NOT NULL DEFAULT '[]'"],
  // The state a session was created with, the default of every reset.
  ["ALTER TABLE session ADD COLUMN initial_state TEXT"],
  // How a result asks to be displayed (payload type, field mapping); NULL
  // for every entry written before, which reads as a plain result.
  [
    "ALTER TABLE store_entries ADD COLUMN payload_type TEXT",
    "ALTER TABLE store_entries ADD COLUMN mapping TEXT"
  ],
  // The tools the running episode's reset chose (NULL: all of them).
  ["ALTER TABLE session ADD COLUMN episode_tools TEXT"],
  // A run started from the chat endpoint keeps the chat's id (a reconnect
  // finds its stream by it) and the first seq its stream replays from;
  // NULL for runs before, and for runs started by POST …/runs.
  [
    "ALTER TABLE runs ADD COLUMN chat_id TEXT",
    "ALTER TABLE runs ADD COLUMN first_seq INTEGER"
  ],
  // Retention sums octet_length(data), read from each row's header without
  // loading the text: the index on bytes only doubled the rows every event
  // writes (Cloudflare bills each index entry as a row written).
  ["DROP INDEX IF EXISTS events_bytes"],
  // A row of the log holds a run of events (event-log.ts): `seq` is its
  // last event's, `first` its first's; NULL for a row of one event.
  ["ALTER TABLE events ADD COLUMN first INTEGER"],
  // The transcript as runs of messages, one row each, keyed by one rowid
  // (episode and first index, state-backend.ts): a step's messages cost
  // one written row where they cost two per message (row and key index).
  // The old rows move over once, as runs of one.
  [
    `CREATE TABLE IF NOT EXISTS transcript_runs (
      id INTEGER PRIMARY KEY,
      episode INTEGER NOT NULL,
      last INTEGER NOT NULL,
      body TEXT NOT NULL)`,
    `INSERT INTO transcript_runs (id, episode, last, body)
      SELECT episode * 4294967296 + idx, episode, idx, message FROM transcript`,
    "DROP TABLE IF EXISTS transcript"
  ],
  // A step's changes to the session row ride in its event-log row
  // (session-row.ts); the table records the seq it was last written at.
  [
    "ALTER TABLE events ADD COLUMN session TEXT",
    "ALTER TABLE session ADD COLUMN as_of INTEGER"
  ],
  // Tables on first use (tables.ts): a new session makes only its row's
  // table, so the version moves into that row (older sessions keep it in
  // meta) and so does the idle timer, which every session has.
  [
    "ALTER TABLE session ADD COLUMN schema_version INTEGER",
    "ALTER TABLE session ADD COLUMN ttl_due INTEGER",
    "UPDATE session SET ttl_due = coalesce((SELECT due_at FROM schedule WHERE kind = 'ttl'), ttl_due)",
    "DELETE FROM schedule WHERE kind = 'ttl'"
  ],
  // Tool calls run as tasks (MCP's tasks, task-rows.ts). Made on first use
  // like every table since; listed here so a migrated layout has it too.
  [
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
  ],
  // What re-scoring reads beside the log (rescore-rows.ts), recorded only
  // by environments that register rubrics. Made on first use.
  [
    `CREATE TABLE IF NOT EXISTS rescore_log (
      episode INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      part INTEGER NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (episode, seq, part)) WITHOUT ROWID`
  ],
  // Judges' verdicts (verdict-rows.ts), made on first use like tasks.
  [
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
  // The dataset tasks of the creation and the episode (session-row.ts).
  TASK_REF_COLUMNS,
  // The model gateway's calls (model-call-rows.ts), made on first use.
  [
    `CREATE TABLE IF NOT EXISTS model_calls (
      episode INTEGER NOT NULL,
      call INTEGER NOT NULL,
      next TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (episode, call))`
  ]
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Each table, with what the migrations made of it (the schema test compares it with tables.ts). */
export const MIGRATED_TABLE_NAMES: ReadonlySet<string> = (() => {
  const names = new Set<string>();
  for (const statement of MIGRATIONS.flat()) {
    const created = /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement);
    if (created) names.add(created[1]!);
    const dropped = /^DROP TABLE IF EXISTS (\w+)/.exec(statement);
    if (dropped) names.delete(dropped[1]!);
  }
  return names;
})();

/** The statements of one version, for migration tests that build an old database. */
export const migrationOf = (version: number): readonly string[] =>
  MIGRATIONS[version - 1] ?? [];
