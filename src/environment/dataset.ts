/**
 * @module Task datasets: a session can be created from an index instead of
 * a task. A dataset is finite (`size` tasks, Aviary's `len()`) or generated
 * (no size: every non-negative safe integer is a seed, Aviary's infinite
 * TaskDataset whose `len()` raises).
 */

export interface Dataset<Task> {
  /** How many tasks; undefined for a generated dataset, which has no end. */
  readonly size: number | undefined;
  get(index: number): Task;
}

/**
 * @example
 * const problems = dataset({ size: 5000, get: (i) => makeProblem(seed + i) });
 */
export const dataset = <Task>(config: {
  size: number;
  get: (index: number) => Task;
}): Dataset<Task> => {
  if (!Number.isSafeInteger(config.size) || config.size < 0) {
    throw new TypeError(
      `dataset size must be a whole number ≥ 0, got ${config.size}.`
    );
  }
  return { size: config.size, get: config.get };
};

/**
 * A dataset without a fixed size: `get(seed)` makes the task for any
 * non-negative safe integer seed, the same task for the same seed.
 *
 * @example
 * const practice = generated({ get: (seed) => makeProblem(seed) });
 */
export const generated = <Task>(config: {
  get: (seed: number) => Task;
}): Dataset<Task> => ({ size: undefined, get: config.get });
