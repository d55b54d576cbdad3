/**
 * @module Tool calls run as tasks, one row each in the session's SQLite.
 * A task writes its row when it starts and once more when it ends (in the
 * call's own commit); a cancel, an object's restart that drives it again,
 * and its expiry each add one write.
 */

import type { ErrorBody } from "../errors";
import { utf8Length } from "../json";
import type { TaskState, ToolInvocationResponse } from "../protocol";
import { hasTable } from "./tables";

/**
 * Storages whose tasks table is known to exist. Reads check for the table
 * rather than make it (a session that never ran a task has none), and the
 * check reads all of sqlite_schema, billed per row: so it is made once per
 * object. A table that vanishes after (a rollback of the transaction that
 * made it, a deleted session) is made again by the next statement that
 * needs it, as every table is (tables.ts).
 */
const made = new WeakSet<SqlStorage>();
const hasTasks = (sql: SqlStorage): boolean => {
  if (made.has(sql)) return true;
  const has = hasTable(sql, "tasks");
  if (has) made.add(sql);
  return has;
};

/**
 * What an MCP task ended with: the call's answer, or the refusal that
 * stopped it. A job in the code (the glossary's word for the background
 * call), so it is not taken for a dataset task's outcome (the task
 * statistics' TaskOutcome).
 */
export type JobOutcome =
  | { result: ToolInvocationResponse }
  | { error: ErrorBody };

/**
 * Before it ends, a task whose call may ask its client keeps, in the same
 * column, what the client declared, what the call asked and is not yet
 * answered (status `input_required`), and every answer so far: the call
 * runs again from its start with them (tools/ask.ts).
 */
export interface JobInput {
  input: {
    capabilities: Record<string, unknown>;
    asked: Record<string, { method: string; params?: Record<string, unknown> }>;
    answers: Record<string, Record<string, unknown>>;
  };
}

export interface TaskRow {
  taskId: string;
  tool: string;
  arguments: Record<string, unknown>;
  status: TaskState;
  outcome?: JobOutcome | JobInput;
  /** Times a later instance of the object took the call up again after one died. */
  redrives: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

interface RawTask extends Record<string, SqlStorageValue> {
  task_id: string;
  tool: string;
  arguments: string;
  status: string;
  outcome: string | null;
  redrives: number;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

const fromRaw = (r: RawTask): TaskRow => ({
  taskId: r.task_id,
  tool: r.tool,
  arguments: JSON.parse(r.arguments) as Record<string, unknown>,
  status: r.status as TaskState,
  ...(r.outcome === null
    ? {}
    : { outcome: JSON.parse(r.outcome) as JobOutcome | JobInput }),
  redrives: r.redrives,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  expiresAt: r.expires_at
});

/** An outcome must fit its row (SQLite's 2 MB) beside the arguments. */
const MAX_OUTCOME_BYTES = 1_000_000;

const outcomeText = (outcome: JobOutcome): string => {
  const text = JSON.stringify(outcome);
  if (utf8Length(text) <= MAX_OUTCOME_BYTES) return text;
  return JSON.stringify({
    error: {
      code: "conflict",
      message:
        "The call committed, but its answer was too large to keep; read the session to see its effect."
    }
  } satisfies JobOutcome);
};

export const insertTask = (sql: SqlStorage, task: TaskRow): void => {
  sql.exec(
    `INSERT INTO tasks (task_id, tool, arguments, status, outcome, redrives,
      created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    task.taskId,
    task.tool,
    JSON.stringify(task.arguments),
    task.status,
    task.outcome === undefined ? null : JSON.stringify(task.outcome),
    task.createdAt,
    task.updatedAt,
    task.expiresAt
  );
};

/** A task still kept at `now` (one past its expiry is gone, whether or not the alarm deleted it yet). */
export const readTask = (
  sql: SqlStorage,
  taskId: string,
  now: number
): TaskRow | undefined => {
  if (!hasTasks(sql)) return undefined;
  const [raw] = sql
    .exec<RawTask>(
      "SELECT * FROM tasks WHERE task_id = ? AND expires_at > ?",
      taskId,
      now
    )
    .toArray();
  return raw === undefined ? undefined : fromRaw(raw);
};

/**
 * Ends a task that is still working; a cancelled one stays cancelled (its
 * call may still have committed). Part of the call's commit when it ran.
 */
export const endTask = (
  sql: SqlStorage,
  taskId: string,
  status: "completed" | "failed",
  outcome: JobOutcome,
  now: number
): void => {
  sql.exec(
    "UPDATE tasks SET status = ?, outcome = ?, updated_at = ? WHERE task_id = ? AND status = 'working'",
    status,
    outcomeText(outcome),
    now,
    taskId
  );
};

/** Cancels a task that has not ended; answers whether it did. */
export const cancelTask = (
  sql: SqlStorage,
  taskId: string,
  now: number
): boolean =>
  sql.exec(
    "UPDATE tasks SET status = 'cancelled', updated_at = ? WHERE task_id = ? AND status IN ('working', 'input_required')",
    now,
    taskId
  ).rowsWritten > 0;

/** What a task's call asked and was answered, and whether it waits on its client or runs again. */
export const writeTaskInput = (
  sql: SqlStorage,
  taskId: string,
  status: "working" | "input_required",
  input: JobInput,
  now: number
): void => {
  sql.exec(
    "UPDATE tasks SET status = ?, outcome = ?, updated_at = ? WHERE task_id = ? AND status IN ('working', 'input_required')",
    status,
    JSON.stringify(input),
    now,
    taskId
  );
};

export const countRedrive = (sql: SqlStorage, taskId: string): void => {
  sql.exec(
    "UPDATE tasks SET redrives = redrives + 1 WHERE task_id = ?",
    taskId
  );
};

/**
 * The oldest working task not in `skip`, if any. Walked in the key's
 * order (a task's id starts with its creation time: task-status.ts) up to
 * the first one found; the finished tasks older than it are read on the
 * way. An index of working tasks would skip them, but it
 * costs two written rows per task (its entry made, then dropped when the
 * task ends), each billed as a thousand rows read, and a session keeps
 * 1,000 tasks at most: the walk is the cheaper of the two.
 */
export const nextWorking = (
  sql: SqlStorage,
  now: number,
  skip: ReadonlySet<string>
): TaskRow | undefined => {
  if (!hasTasks(sql)) return undefined;
  // LIMIT 1, with `skip` in the query: a cursor reads a row ahead of the
  // one it hands out, which without a limit is the rest of the table.
  const [raw] = sql
    .exec<RawTask>(
      `SELECT * FROM tasks WHERE status = 'working' AND expires_at > ?
        AND task_id NOT IN (SELECT value FROM json_each(?))
        ORDER BY task_id LIMIT 1`,
      now,
      JSON.stringify([...skip])
    )
    .toArray();
  return raw === undefined ? undefined : fromRaw(raw);
};

/**
 * The kept tasks' ids and whether each is working, in one read: what the
 * session's limits count. Every kept row is read, so a session reads it
 * once and keeps the count in memory (layers/mcp/task-counts.ts).
 */
export const taskCensus = (
  sql: SqlStorage,
  now: number
): { working: string[]; kept: number } => {
  if (!hasTasks(sql)) return { working: [], kept: 0 };
  const rows = sql
    .exec<{ task_id: string; status: string }>(
      "SELECT task_id, status FROM tasks WHERE expires_at > ?",
      now
    )
    .toArray();
  return {
    working: rows.filter((r) => r.status === "working").map((r) => r.task_id),
    kept: rows.length
  };
};

/**
 * A page of kept tasks, oldest first, after the task `after` names (a
 * previous page's last). A task's id starts with its creation time, fixed
 * width, then a count within the millisecond (task-status.ts), so the
 * key's order is creation order and a page reads its own rows by the key,
 * not every kept row to sort them.
 */
export const listTasks = (
  sql: SqlStorage,
  now: number,
  limit: number,
  after?: { taskId: string }
): TaskRow[] => {
  if (!hasTasks(sql)) return [];
  return sql
    .exec<RawTask>(
      "SELECT * FROM tasks WHERE task_id > ? AND expires_at > ? ORDER BY task_id LIMIT ?",
      after?.taskId ?? "",
      now,
      limit
    )
    .toArray()
    .map(fromRaw);
};

/**
 * Deletes expired tasks, a bounded batch at a time; returns how many.
 * This and nextTaskExpiry read every kept task (no index on the expiry),
 * once per expiry alarm: at most 1,000 rows, where an index would cost
 * two written rows per task (its entry made, then deleted).
 */
export const expireTasks = (sql: SqlStorage, now: number, batch = 1000) =>
  hasTasks(sql)
    ? sql.exec(
        "DELETE FROM tasks WHERE task_id IN (SELECT task_id FROM tasks WHERE expires_at <= ? LIMIT ?)",
        now,
        batch
      ).rowsWritten
    : 0;

/** The earliest expiry still stored, for the schedule. */
export const nextTaskExpiry = (sql: SqlStorage): number | undefined =>
  hasTasks(sql)
    ? (sql
        .exec<{ t: number | null }>("SELECT min(expires_at) AS t FROM tasks")
        .one().t ?? undefined)
    : undefined;
