/** @module The curriculum's statistics on disk (`--task-stats`): read before a run, written after it. */

import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { TaskStats, TaskStatsFileSchema } from "../client/task-stats";
import { UsageError } from "./usage-error";

/**
 * The statistics a file holds, or empty ones when it does not exist yet
 * (the first run of a curriculum). A file of another environment, or one
 * that is not a statistics file, is a usage error: continuing from it
 * would steer the run by someone else's outcomes.
 */
export const readTaskStats = (path: string, environment: string): TaskStats => {
  if (!existsSync(path)) return new TaskStats();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(
      `--task-stats ${path} is not JSON: ${(error as Error).message}`
    );
  }
  const file = TaskStatsFileSchema.safeParse(parsed);
  if (!file.success)
    throw new UsageError(
      `--task-stats ${path} is not a task statistics file: ${file.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`
    );
  if (file.data.environment !== environment)
    throw new UsageError(
      `--task-stats ${path} holds statistics of environment "${file.data.environment}", not "${environment}".`
    );
  return TaskStats.from(file.data);
};

/** Written beside the file and renamed over it, so an interrupted write never leaves half a file. */
export const writeTaskStats = (
  path: string,
  environment: string,
  stats: TaskStats
): void => {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(
    temporary,
    `${JSON.stringify(stats.toJSON(environment), null, 2)}\n`
  );
  renameSync(temporary, path);
};
