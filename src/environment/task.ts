/** @module Choosing and validating a session's task: given directly or picked from a dataset split. */

import { RoostError } from "../errors";
import { describeIssues } from "../issues";
import type { Dataset } from "./dataset";
import type { Environment } from "./define-environment";

/** The split names of an environment, for messages and listings. */
export const splitNames = (env: Environment): string[] =>
  Object.keys(env.splits ?? {});

/**
 * The dataset `split` names, or the environment's `dataset` when no split
 * is named (the default split).
 */
export const datasetOf = (
  env: Environment,
  split: string | undefined
): Dataset<unknown> => {
  const names = splitNames(env);
  if (split !== undefined) {
    const found = Object.hasOwn(env.splits ?? {}, split)
      ? env.splits?.[split]
      : undefined;
    if (found === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${env.name} has no split "${split}"; its splits: ${names.join(", ") || "none"}.`,
        { field: "split", splits: names }
      );
    }
    return found;
  }
  if (env.dataset === undefined) {
    throw new RoostError(
      "invalid_request",
      names.length > 0
        ? `Environment ${env.name} has no default dataset; name a split with task_index: ${names.join(", ")}.`
        : `Environment ${env.name} has no dataset; give a task instead of task_index.`,
      { field: names.length > 0 ? "split" : "task_index", splits: names }
    );
  }
  return env.dataset;
};

/**
 * The task of a create or reset request: `task_index` picks from the
 * environment's dataset, or from `split` when one is named; in a generated
 * split the index is the seed.
 */
export const resolveTask = (
  env: Environment,
  request: { task?: unknown; task_index?: number; split?: string }
): unknown => {
  let raw = request.task;
  if (request.split !== undefined && request.task_index === undefined) {
    throw new RoostError(
      "invalid_request",
      "A split needs a task_index: the index of the task in it (the seed of a generated split).",
      { field: "task_index" }
    );
  }
  if (request.task_index !== undefined) {
    const index = request.task_index;
    const data = datasetOf(env, request.split);
    const where =
      request.split === undefined
        ? `the ${env.name} dataset`
        : `split "${request.split}" of ${env.name}`;
    if (!Number.isSafeInteger(index) || index < 0) {
      throw new RoostError(
        "invalid_request",
        `task_index must be a whole number ≥ 0, got ${index}.`,
        { field: "task_index" }
      );
    }
    if (data.size !== undefined && index >= data.size) {
      throw new RoostError(
        "invalid_request",
        `task_index ${index} is out of range: ${where} has ${data.size} tasks.`,
        { field: "task_index", size: data.size }
      );
    }
    raw = data.get(index);
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
