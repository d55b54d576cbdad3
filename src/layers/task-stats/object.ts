/**
 * @module The task statistics' Durable Object class: one object per
 * environment (by name) keeps its statistics, bound as `TASK_STATS`. A
 * class of its own, so its SQL and its methods are the layer's alone, and
 * a session object never answers for them.
 */

import { DurableObject } from "cloudflare:workers";
import {
  readStats,
  readUnconfirmed,
  recordOutcome,
  resetStats,
  type SampleRequest,
  type SplitFilter,
  sampleTasks,
  type TaskOutcome,
  type TaskStatRow
} from "./statistics";

/**
 * Export it from the worker (`export { TaskStats } from
 * "roost-edge/layers/task-stats"`) and bind it as `TASK_STATS` with a
 * SQLite migration (docs/16-layers.md). A Durable Object answers one call
 * at a time, so concurrent episodes' outcomes never overwrite each other.
 */
export class TaskStats extends DurableObject {
  /** One ended episode, and how many its session could not confirm before it. */
  recordTaskOutcome(outcome: TaskOutcome, unconfirmed = 0): void {
    recordOutcome(this.ctx.storage.sql, outcome, unconfirmed);
  }

  readTaskStats(
    filter: SplitFilter,
    after: { split: string | null; index: number } | undefined,
    limit: number
  ): { rows: TaskStatRow[]; more: boolean; unconfirmed: number } {
    const sql = this.ctx.storage.sql;
    return {
      ...readStats(sql, filter, after, limit),
      unconfirmed: readUnconfirmed(sql)
    };
  }

  resetTaskStats(filter: SplitFilter): number {
    return resetStats(this.ctx.storage.sql, filter);
  }

  sampleTasks(request: SampleRequest): number[] {
    return sampleTasks(this.ctx.storage.sql, request);
  }
}
