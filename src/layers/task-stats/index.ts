/**
 * @module The task-statistics layer: each ended episode of a dataset task
 * counted per environment and split, whichever protocol played it, read,
 * reset and sampled from (`…/task-stats`, the server's curriculum). One
 * object of the session class per environment keeps them (statistics.ts).
 */

import type { Layer } from "../../http/layer";
import { reportOutcomes } from "./report";
import { taskStatsRoutes } from "./routes";
import {
  readStats,
  recordOutcome,
  resetStats,
  type SampleRequest,
  type SplitFilter,
  sampleTasks,
  type TaskOutcome,
  type TaskStatRow
} from "./statistics";

/** The statistics object's methods (called on the one object kept per environment, never on a session's). */
export interface TaskStatsMethods {
  recordTaskOutcome(outcome: TaskOutcome): void;
  readTaskStats(
    filter: SplitFilter,
    after: { split: string | null; index: number } | undefined,
    limit: number
  ): { rows: TaskStatRow[]; more: boolean };
  resetTaskStats(filter: SplitFilter): number;
  sampleTasks(request: SampleRequest): number[];
}

export const taskStats = (): Layer => ({
  name: "task-stats",
  routes: taskStatsRoutes,
  attach: reportOutcomes,
  extendClass: (Base) =>
    class extends Base implements TaskStatsMethods {
      recordTaskOutcome(outcome: TaskOutcome): void {
        recordOutcome(this.ctx.storage.sql, outcome);
      }

      readTaskStats(
        filter: SplitFilter,
        after: { split: string | null; index: number } | undefined,
        limit: number
      ): { rows: TaskStatRow[]; more: boolean } {
        return readStats(this.ctx.storage.sql, filter, after, limit);
      }

      resetTaskStats(filter: SplitFilter): number {
        return resetStats(this.ctx.storage.sql, filter);
      }

      sampleTasks(request: SampleRequest): number[] {
        return sampleTasks(this.ctx.storage.sql, request);
      }
    }
});
