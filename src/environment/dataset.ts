/** @module Task datasets: a session can be created from an index instead of a task. */

export interface Dataset<Task> {
  readonly size: number;
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
