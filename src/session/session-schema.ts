/** @module The session's own tables: its row, event log, idempotency records and schedule. */

/**
 * Created once, when the session is created — never by a probe of a random
 * id — next to the backends' tables (sql-schema.ts).
 */
export const createSessionTables = (sql: SqlStorage): void => {
  sql.exec(`CREATE TABLE IF NOT EXISTS session (
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
    inflight TEXT
  )`);
  sql.exec(`CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    episode INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    bytes INTEGER NOT NULL
  )`);
  // Byte-based retention sums `bytes` without reading the events themselves.
  sql.exec("CREATE INDEX IF NOT EXISTS events_bytes ON events (seq, bytes)");
  sql.exec(`CREATE TABLE IF NOT EXISTS idempotency (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    hash TEXT NOT NULL,
    response TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
  )`);
  sql.exec(
    "CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at)"
  );
  sql.exec(`CREATE TABLE IF NOT EXISTS schedule (
    kind TEXT PRIMARY KEY,
    due_at INTEGER NOT NULL
  )`);
};
