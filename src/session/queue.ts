/** @module The one queue every mutation of a session goes through. */

/**
 * Runs tasks one at a time in arrival order. A task may await I/O; the next
 * starts only when it settled. Unlike `blockConcurrencyWhile`, reads are not
 * held up and a long task does not reset the object.
 */
export class MutationQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const next = this.#tail.then(task, task);
    this.#tail = next.then(
      () => this.#pending--,
      () => this.#pending--
    );
    return next;
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }
}
