/**
 * @module Per-task outcome statistics of a curriculum: successes and
 * attempts per dataset index and split, kept in memory for a run and
 * written to / read from JSON so a restarted run continues where it stopped.
 */

import * as z from "zod";

/** One task's record. `split` is null for the environment's own dataset. */
export const TaskRecordSchema = z.object({
  split: z.string().nullable(),
  index: z.number().int().min(0),
  attempts: z.number().int().min(0),
  successes: z.number().int().min(0)
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** The file `--task-stats` reads and writes (version 1). */
export const TaskStatsFileSchema = z.object({
  version: z.literal(1),
  environment: z.string(),
  tasks: z.array(
    TaskRecordSchema.refine((t) => t.successes <= t.attempts, {
      message: "successes cannot exceed attempts"
    })
  )
});
export type TaskStatsFile = z.infer<typeof TaskStatsFileSchema>;

const keyOf = (split: string | null, index: number): string =>
  `${split ?? ""}\u0000${index}`;

/** Successes and attempts by (split, index); a task never tried has none. */
export class TaskStats {
  readonly #tasks = new Map<string, TaskRecord>();

  /** Starts from a saved file's records (their environment is checked by the caller). */
  static from(file: TaskStatsFile | undefined): TaskStats {
    const stats = new TaskStats();
    for (const t of file?.tasks ?? [])
      stats.add(t.split, t.index, t.attempts, t.successes);
    return stats;
  }

  get(split: string | null, index: number): TaskRecord | undefined {
    return this.#tasks.get(keyOf(split, index));
  }

  /** The records of one split, ascending by index. */
  records(split: string | null): TaskRecord[] {
    return [...this.#tasks.values()]
      .filter((t) => t.split === split)
      .sort((a, b) => a.index - b.index);
  }

  add(
    split: string | null,
    index: number,
    attempts: number,
    successes: number
  ): void {
    const key = keyOf(split, index);
    const old = this.#tasks.get(key) ?? {
      split,
      index,
      attempts: 0,
      successes: 0
    };
    this.#tasks.set(key, {
      split,
      index,
      attempts: old.attempts + attempts,
      successes: old.successes + successes
    });
  }

  /** Sorted by split, then index, so a saved file diffs cleanly between runs. */
  toJSON(environment: string): TaskStatsFile {
    const tasks = [...this.#tasks.values()].sort(
      (a, b) =>
        (a.split ?? "").localeCompare(b.split ?? "") || a.index - b.index
    );
    return { version: 1, environment, tasks };
  }
}
