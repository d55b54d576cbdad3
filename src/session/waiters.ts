/** @module Readers waiting on something by id (a run, a task) until it ends or their time runs out. */

export class Waiters {
  readonly #byId = new Map<string, Set<() => void>>();

  /** Resolves when `wake(id)` is called, or after `ms`, whichever is first. */
  wait(id: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.#byId.get(id) ?? new Set();
      this.#byId.set(id, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  wake(id: string): void {
    for (const wake of [...(this.#byId.get(id) ?? [])]) wake();
    this.#byId.delete(id);
  }
}
