/** @module `…/environments/:name/task-stats`: the server's per-task outcome statistics, their reset, and the curriculum's draw from them. */

import * as z from "zod";
import { lazy } from "../lazy";
import { NameSchema } from "./limits";
import { CursorSchema, integerString, pageLimit } from "./query";

/** The group sizes P(signal) is computed for; 1 is weighted as pairs (protocol/task-signal.ts). */
export const GROUP_SIZE = { min: 1, max: 1024 } as const;
/** Indexes one sample request draws at most. */
export const SAMPLE_COUNT_MAX = 1024;
/** The pool a sample draws from at most (indexes 0 … task_count − 1). */
export const SAMPLE_TASK_COUNT_MAX = 1_000_000;

export const TaskStatsQuerySchema = lazy(() =>
  z.object({
    /** Only this split's records; without it, every split's and the own dataset's (`split` null). */
    split: NameSchema().optional(),
    /** The group size `p_signal` is computed for (default 1: weighted as pairs). */
    group_size: integerString({ ...GROUP_SIZE, default: 1 }),
    cursor: CursorSchema().optional(),
    limit: pageLimit()
  })
);

export const TaskStatsDeleteQuerySchema = lazy(() =>
  z.object({
    /** Only this split's records; without it, all of the environment's. */
    split: NameSchema().optional()
  })
);

export const TaskStatSchema = lazy(() =>
  z
    .object({
      /** null: the environment's own dataset. */
      split: z.string().nullable(),
      index: z.number().int(),
      attempts: z.number().int(),
      successes: z.number().int(),
      /** The mean return of its ended episodes. */
      mean_return: z.number().nullable(),
      /** (successes + 1) / (attempts + 2): the curriculum's estimate, with its Beta(1, 1) prior. */
      pass_rate: z.number(),
      /** 1 − p^G − (1 − p)^G for that estimate and `group_size` (G = 1 weighted as G = 2). */
      p_signal: z.number()
    })
    .meta({ id: "TaskStat" })
);

export const TaskStatsResponseSchema = lazy(() =>
  z
    .object({
      environment: z.string(),
      /** The return at or above which an episode counted as a success. */
      success_threshold: z.number(),
      group_size: z.number().int(),
      /** Tasks with at least one ended episode, by split then index; a task never played has no record. */
      tasks: z.array(TaskStatSchema()),
      /**
       * Ended episodes (of every split) whose sessions could not confirm
       * sending them (the statistics failed or took more than 2 s):
       * at most this many are missing from the counts. Reported with the
       * session's next outcome that gets through; zero again once every
       * split's statistics are deleted.
       */
      unconfirmed: z.number().int().min(0),
      next_cursor: CursorSchema().optional()
    })
    .meta({ id: "TaskStatsResponse" })
);
export type TaskStatsResponse = z.infer<
  ReturnType<typeof TaskStatsResponseSchema>
>;

export const TaskStatsDeleteResponseSchema = lazy(() =>
  z.object({
    environment: z.string(),
    /** The split reset; absent when every split was. */
    split: z.string().optional(),
    /** How many tasks' records were removed. */
    removed: z.number().int()
  })
);

export const TaskSampleRequestSchema = lazy(() =>
  z
    .strictObject({
      /** The split to draw from; without it, the environment's own dataset. */
      split: NameSchema().optional(),
      /** The run's group size G of P(signal) = 1 − p^G − (1 − p)^G. */
      group_size: z.number().int().min(GROUP_SIZE.min).max(GROUP_SIZE.max),
      /** How many indexes to draw (with replacement). */
      count: z.number().int().min(1).max(SAMPLE_COUNT_MAX),
      /** Seeds the draw: the same seed and statistics give the same indexes. */
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .optional(),
      /** Draw from indexes 0 … task_count − 1 only (default: the whole dataset; a generated split: 0 … 999). */
      task_count: z.number().int().min(1).max(SAMPLE_TASK_COUNT_MAX).optional()
    })
    .meta({
      id: "TaskSampleRequest",
      description:
        "Dataset indexes drawn by the curriculum: each in proportion to its P(signal) from the server's statistics."
    })
);
export type TaskSampleRequest = z.infer<
  ReturnType<typeof TaskSampleRequestSchema>
>;

export const TaskSampleResponseSchema = lazy(() =>
  z
    .object({
      task_indices: z.array(z.number().int()),
      split: z.string().nullable(),
      group_size: z.number().int(),
      task_count: z.number().int(),
      seed: z.number().int()
    })
    .meta({ id: "TaskSampleResponse" })
);
export type TaskSampleResponse = z.infer<
  ReturnType<typeof TaskSampleResponseSchema>
>;
