/** @module The socket heartbeat: a ping every interval, and a verdict on a connection that went silent. */

import type { Clock, TimerHandle } from "./clock";

/**
 * Any frame counts as a sign of life, not only the pong: a busy stream
 * needs no pings answered to prove itself. A whole interval without one
 * after a ping means the connection is dead even if the OS has not noticed.
 */
export class Heartbeat {
  readonly #clock: Clock;
  readonly #every: number;
  readonly #ping: () => void;
  readonly #silent: () => void;
  #timer: TimerHandle | undefined;
  #quiet = false;

  constructor(
    clock: Clock,
    every: number,
    handlers: { ping: () => void; silent: () => void }
  ) {
    this.#clock = clock;
    this.#every = every;
    this.#ping = handlers.ping;
    this.#silent = handlers.silent;
  }

  start(): void {
    this.stop();
    if (this.#every <= 0) return;
    this.#quiet = false;
    this.#schedule();
  }

  /** Something arrived on the socket. */
  heard(): void {
    this.#quiet = false;
  }

  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#quiet) return this.#silent();
      this.#quiet = true;
      this.#ping();
      this.#schedule();
    }, this.#every);
  }
}
