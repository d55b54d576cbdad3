/** @module Choosing and validating a session's task: given directly or picked from the dataset. */

import { RoostError } from "../errors";
import { describeIssues } from "../issues";
import type { Environment } from "./define-environment";

/** The task of a create or reset request; `task_index` picks from the environment's dataset. */
export const resolveTask = (
  env: Environment,
  request: { task?: unknown; task_index?: number }
): unknown => {
  let raw = request.task;
  if (request.task_index !== undefined) {
    if (env.dataset === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${env.name} has no dataset; give a task instead of task_index.`,
        { field: "task_index" }
      );
    }
    if (request.task_index >= env.dataset.size) {
      throw new RoostError(
        "invalid_request",
        `task_index ${request.task_index} is out of range: the ${env.name} dataset has ${env.dataset.size} tasks.`,
        { field: "task_index" }
      );
    }
    raw = env.dataset.get(request.task_index);
  }
  const parsed = env.task.safeParse(raw);
  if (!parsed.success) {
    throw new RoostError(
      "invalid_request",
      `Invalid task for ${env.name}: ${describeIssues(parsed.error.issues.map((i) => ({ ...i, path: ["task", ...i.path] })))}`,
      { field: "task", issues: parsed.error.issues }
    );
  }
  return parsed.data;
};
