/** @module Choosing and validating a session's task: given directly or picked from a dataset split. */

import { RoostError } from "../errors";
import { describeIssues } from "../issues";
import type { Dataset } from "./dataset";
import type { Environment } from "./define-environment";

/**
 * Which dataset task a task came from: `split` null is the environment's
 * own `dataset`. Sessions keep it beside the task, so the outcome of an
 * episode of it can be counted for that task.
 */
export interface TaskRef {
  split: string | null;
  index: number;
}

/** The dataset task a create or reset request names, if it names one by index. */
export const taskRefOf = (request: {
  task_index?: number;
  split?: string;
}): TaskRef | undefined =>
  request.task_index === undefined
    ? undefined
    : { split: request.split ?? null, index: request.task_index };

/**
 * The return at or above which an episode counts as a success in the task
 * statistics: the environment's `successThreshold`, else the maximum its
 * validation declares (`validation.maxReturn`), else 1.
 */
export const successThresholdOf = (environment: Environment): number =>
  environment.successThreshold ?? environment.validation?.maxReturn ?? 1;

/** The split names of an environment, for messages and listings. */
export const splitNames = (environment: Environment): string[] =>
  Object.keys(environment.splits ?? {});

/**
 * The dataset `split` names, or the environment's `dataset` when no split
 * is named (the default split).
 */
export const datasetOf = (
  environment: Environment,
  split: string | undefined
): Dataset<unknown> => {
  const names = splitNames(environment);
  if (split !== undefined) {
    const found = Object.hasOwn(environment.splits ?? {}, split)
      ? environment.splits?.[split]
      : undefined;
    if (found === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${environment.name} has no split "${split}"; its splits: ${names.join(", ") || "none"}.`,
        { field: "split", splits: names }
      );
    }
    return found;
  }
  if (environment.dataset === undefined) {
    throw new RoostError(
      "invalid_request",
      names.length > 0
        ? `Environment ${environment.name} has no default dataset; name a split with task_index: ${names.join(", ")}.`
        : `Environment ${environment.name} has no dataset; give a task instead of task_index.`,
      { field: names.length > 0 ? "split" : "task_index", splits: names }
    );
  }
  return environment.dataset;
};

/**
 * The task of a create or reset request: `task_index` picks from the
 * environment's dataset, or from `split` when one is named; in a generated
 * split the index is the seed.
 */
export const resolveTask = (
  environment: Environment,
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
    const data = datasetOf(environment, request.split);
    const where =
      request.split === undefined
        ? `the ${environment.name} dataset`
        : `split "${request.split}" of ${environment.name}`;
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
  const parsed = environment.task.safeParse(raw);
  if (!parsed.success) {
    throw new RoostError(
      "invalid_request",
      `Invalid task for ${environment.name}: ${describeIssues(parsed.error.issues.map((i) => ({ ...i, path: ["task", ...i.path] })))}`,
      { field: "task", issues: parsed.error.issues }
    );
  }
  return parsed.data;
};
