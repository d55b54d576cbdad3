/**
 * A clock that only moves when a test says so: timers due at or before the
 * new time run in order, so backoff and heartbeats are tested without sleeping.
 */
import type { Clock } from "../../../src/client/index";

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

export class ManualClock implements Clock {
  #now = 0;
  #next = 1;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.#next++;
    this.#timers.push({ id, at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }

  /** Delays of the timers still waiting, from now. */
  get pending(): number[] {
    return this.#timers.map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = this.#timers
        .filter((t) => t.at <= until)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.callback();
    }
    this.#now = until;
  }
}
