/** @module A reader/writer lock: concurrency-safe calls share it, the others hold it alone. */

type Waiter = { exclusive: boolean; wake: () => void };

/**
 * Grants in arrival order, so an exclusive call is not starved by a stream
 * of shared ones that arrive after it.
 */
export class ReadWriteLock {
  #readers = 0;
  #writer = false;
  #queue: Waiter[] = [];

  acquire(exclusive: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({
        exclusive,
        wake: () => resolve(() => this.#release(exclusive))
      });
      this.#drain();
    });
  }

  #release(exclusive: boolean): void {
    if (exclusive) this.#writer = false;
    else this.#readers--;
    this.#drain();
  }

  #drain(): void {
    while (this.#queue.length > 0 && !this.#writer) {
      const next = this.#queue[0]!;
      if (next.exclusive && this.#readers > 0) return;
      this.#queue.shift();
      if (next.exclusive) this.#writer = true;
      else this.#readers++;
      next.wake();
      if (next.exclusive) return;
    }
  }
}
