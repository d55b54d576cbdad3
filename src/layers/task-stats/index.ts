/**
 * @module The task-statistics layer: each ended episode of a dataset task
 * counted per environment and split, whichever protocol played it, read,
 * reset and sampled from (`…/task-stats`, the server's curriculum). One
 * TaskStats object per environment keeps them (object.ts).
 */

import type { Layer } from "../../http/layer";
import { TaskStats } from "./object";
import { reportOutcomes } from "./report";
import { taskStatsRoutes } from "./routes";

export { TaskStats };

/**
 * The statistics of a worker's dataset tasks. The worker exports
 * `TaskStats` and binds it as `TASK_STATS` (docs/16-layers.md).
 */
export const taskStats = (): Layer => ({
  name: "task-stats",
  routes: taskStatsRoutes,
  attach: reportOutcomes
});
