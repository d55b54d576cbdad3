/**
 * @module Task statistics of one environment: attempts, successes and the
 * sum of returns per (split, dataset index), in the SQLite storage of one
 * TaskStats object per environment (object.ts). Sessions send each ended
 * episode's outcome there (report.ts); the HTTP routes read, reset and
 * sample from them.
 */

import { RoostError } from "../../errors";
import { type LayerObject, layerNamespace } from "../../http/layer";
import {
  passRate,
  seededRandom,
  taskWeight,
  type WeightedTask,
  weightedDraw
} from "../../protocol/task-signal";

// `split` '' is the environment's own dataset: split names are never empty.
const TABLE = `CREATE TABLE IF NOT EXISTS task_stats (
  split TEXT NOT NULL,
  task_index INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  successes INTEGER NOT NULL,
  return_sum REAL NOT NULL,
  PRIMARY KEY (split, task_index)) WITHOUT ROWID`;

/**
 * Outcomes sessions sent and could not confirm (a failed or slow call),
 * reported with their next outcome that got through: at most that many
 * episodes are missing from the counts. One row, made on the first.
 */
const UNCONFIRMED_TABLE = `CREATE TABLE IF NOT EXISTS task_stats_unconfirmed (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  outcomes INTEGER NOT NULL)`;

/** One ended episode of a dataset task. `split` null is the own dataset. */
export interface TaskOutcome {
  split: string | null;
  index: number;
  return: number;
  success: boolean;
}

export interface TaskStatRow {
  split: string | null;
  index: number;
  attempts: number;
  successes: number;
  return_sum: number;
}

const stored = (split: string | null): string => split ?? "";
const shown = (split: string): string | null => (split === "" ? null : split);

/**
 * Adds one outcome: one row written (an upsert of its task's row), and one
 * more when its session carries `unconfirmed` outcomes of its own.
 */
export const recordOutcome = (
  sql: SqlStorage,
  outcome: TaskOutcome,
  unconfirmed = 0
): void => {
  if (unconfirmed > 0) {
    sql.exec(UNCONFIRMED_TABLE);
    sql.exec(
      `INSERT INTO task_stats_unconfirmed (id, outcomes) VALUES (1, ?)
       ON CONFLICT (id) DO UPDATE SET outcomes = outcomes + excluded.outcomes`,
      unconfirmed
    );
  }
  sql.exec(TABLE);
  sql.exec(
    `INSERT INTO task_stats (split, task_index, attempts, successes, return_sum)
     VALUES (?, ?, 1, ?, ?)
     ON CONFLICT (split, task_index) DO UPDATE SET
       attempts = attempts + 1,
       successes = successes + excluded.successes,
       return_sum = return_sum + excluded.return_sum`,
    stored(outcome.split),
    outcome.index,
    outcome.success ? 1 : 0,
    // A non-finite return would poison the sum for good.
    Number.isFinite(outcome.return) ? outcome.return : 0
  );
};

const hasTable = (sql: SqlStorage, name = "task_stats"): boolean =>
  sql
    .exec("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", name)
    .toArray().length > 0;

/** The outcomes sessions reported unconfirmed since the statistics were last reset whole. */
export const readUnconfirmed = (sql: SqlStorage): number =>
  hasTable(sql, "task_stats_unconfirmed")
    ? (sql
        .exec<{ outcomes: number }>(
          "SELECT outcomes FROM task_stats_unconfirmed WHERE id = 1"
        )
        .toArray()[0]?.outcomes ?? 0)
    : 0;

/** Which records a read or a reset covers: every split, or one (null: the own dataset). */
export type SplitFilter = { all: true } | { all: false; split: string | null };

const where = (filter: SplitFilter): [string, string[]] =>
  filter.all ? ["", []] : [" AND split = ?", [stored(filter.split)]];

/**
 * A page of records in (split, index) order, after `after` (the last one
 * of the previous page), at most `limit`; and whether there are more.
 */
export const readStats = (
  sql: SqlStorage,
  filter: SplitFilter,
  after: { split: string | null; index: number } | undefined,
  limit: number
): { rows: TaskStatRow[]; more: boolean } => {
  if (!hasTable(sql)) return { rows: [], more: false };
  const [clause, params] = where(filter);
  const cursor = after ?? { split: "", index: -1 };
  const raw = sql
    .exec<{
      split: string;
      task_index: number;
      attempts: number;
      successes: number;
      return_sum: number;
    }>(
      `SELECT split, task_index, attempts, successes, return_sum FROM task_stats
       WHERE (split, task_index) > (?, ?)${clause}
       ORDER BY split, task_index LIMIT ?`,
      after === undefined ? "" : stored(cursor.split),
      after === undefined ? -1 : cursor.index,
      ...params,
      limit + 1
    )
    .toArray();
  return {
    rows: raw.slice(0, limit).map((r) => ({
      split: shown(r.split),
      index: r.task_index,
      attempts: r.attempts,
      successes: r.successes,
      return_sum: r.return_sum
    })),
    more: raw.length > limit
  };
};

/** Forgets the records `filter` covers; how many tasks' records went. */
export const resetStats = (sql: SqlStorage, filter: SplitFilter): number => {
  // Not kept per split: only forgetting every split forgets them.
  if (filter.all && hasTable(sql, "task_stats_unconfirmed"))
    sql.exec("DELETE FROM task_stats_unconfirmed");
  if (!hasTable(sql)) return 0;
  const [clause, params] = where(filter);
  return sql.exec(`DELETE FROM task_stats WHERE 1 = 1${clause}`, ...params)
    .rowsWritten;
};

export interface SampleRequest {
  split: string | null;
  /** Indexes 0 … taskCount − 1 are drawn from. */
  taskCount: number;
  groupSize: number;
  count: number;
  seed: number;
}

/** Indexes the server draws at most per request, and the pool it draws them from at most. */
export const SAMPLE_LIMITS = { count: 1024, taskCount: 1_000_000 } as const;

/**
 * `count` indexes drawn (with replacement) from 0 … taskCount − 1, each in
 * proportion to its P(signal) for groups of `groupSize`, with the prior
 * of protocol/task-signal.ts for tasks without a record; the client's
 * curriculum draws the same way.
 */
export const sampleTasks = (
  sql: SqlStorage,
  request: SampleRequest
): number[] => {
  if (request.taskCount > SAMPLE_LIMITS.taskCount) {
    throw new RoostError(
      "invalid_request",
      `task_count may be at most ${SAMPLE_LIMITS.taskCount}.`,
      { field: "task_count" }
    );
  }
  const known: WeightedTask[] = [];
  if (hasTable(sql)) {
    for (const r of sql.exec<{
      task_index: number;
      attempts: number;
      successes: number;
    }>(
      "SELECT task_index, attempts, successes FROM task_stats WHERE split = ? AND task_index < ? ORDER BY task_index",
      stored(request.split),
      request.taskCount
    ))
      known.push({
        index: r.task_index,
        weight: taskWeight(r, request.groupSize)
      });
  }
  // Untried tasks all weigh the prior's weight: a draw searches the tried
  // ones only, so a large split costs what its statistics hold.
  const draw = weightedDraw(
    request.taskCount,
    known,
    taskWeight(undefined, request.groupSize)
  );
  const random = seededRandom(request.seed);
  return Array.from({ length: request.count }, () => draw(random));
};

/** A record as the routes answer it, with its P(signal) for groups of `groupSize`. */
export const describeRow = (row: TaskStatRow, groupSize: number) => ({
  split: row.split,
  index: row.index,
  attempts: row.attempts,
  successes: row.successes,
  mean_return: row.attempts > 0 ? row.return_sum / row.attempts : null,
  pass_rate: passRate(row.attempts, row.successes),
  p_signal: taskWeight(row, groupSize)
});

/** The methods of the statistics object, as a stub of it offers them. */
export interface TaskStatsObject {
  recordTaskOutcome(outcome: TaskOutcome, unconfirmed?: number): Promise<void>;
  readTaskStats(
    filter: SplitFilter,
    after: { split: string | null; index: number } | undefined,
    limit: number
  ): Promise<{ rows: TaskStatRow[]; more: boolean; unconfirmed: number }>;
  resetTaskStats(filter: SplitFilter): Promise<number>;
  sampleTasks(request: SampleRequest): Promise<number[]>;
}

/** The statistics' class, as a worker binds it. */
export const TASK_STATS_OBJECT: LayerObject = {
  layer: "taskStats()",
  binding: "TASK_STATS",
  className: "TaskStats",
  module: "roost-edge/layers/task-stats"
};

/**
 * The statistics object of `environment`, by name in the TASK_STATS
 * namespace: the same object whichever worker or session asks. A worker
 * without the binding is told how to add it (layerNamespace).
 */
export const taskStatsObject = (
  env: unknown,
  environment: string
): TaskStatsObject => {
  const namespace = layerNamespace(env, TASK_STATS_OBJECT);
  return namespace.get(
    namespace.idFromName(environment)
  ) as unknown as TaskStatsObject;
};
