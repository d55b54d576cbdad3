/** @module The one queue every mutation of a session goes through. */

/**
 * Runs tasks one at a time in arrival order. A task may await I/O; the next
 * starts only when it settled. Unlike `blockConcurrencyWhile`, reads are not
 * held up and a long task does not reset the object.
 */
export class MutationQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;
  /** Called as each task settles: the socket layer sends the task's events then. */
  onSettled: () => void = () => {};

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const next = this.#tail.then(task, task);
    const settled = () => {
      this.#pending--;
      this.onSettled();
    };
    this.#tail = next.then(settled, settled);
    return next;
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }
}
