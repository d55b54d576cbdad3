/** @module What one mutation may stage: bytes written and environment entries, refused past their limits. */

import { RoostError } from "../errors";
import { utf8Length } from "../json";
import type { StoreBackend } from "../store/types";

export interface MeterLimits {
  /** Bytes of JSON one mutation may stage across store, state, transcript and hidden store. */
  stagedBytes: number;
  /** Entries the episode's environment store may hold once the mutation commits. */
  entries: number;
}

const jsonBytes = (value: unknown): number =>
  utf8Length(JSON.stringify(value) ?? "");

/**
 * Counts as writes happen and refuses the write that crosses a limit. A
 * tool may catch that refusal, so the runtime also checks `exceeded` before
 * it commits: a mutation that crossed a limit never commits, whatever its
 * tools did with the error.
 */
export class StepMeter {
  readonly #limits: MeterLimits;
  #bytes = 0;
  /** An upper bound on the store's entries: adds counted, removals not. */
  #entries: number | undefined;
  exceeded: RoostError | undefined;

  constructor(limits: MeterLimits) {
    this.#limits = limits;
  }

  get stagedBytes(): number {
    return this.#bytes;
  }

  charge(value: unknown): void {
    this.#bytes += jsonBytes(value);
    if (this.#bytes > this.#limits.stagedBytes) {
      this.#refuse(
        `This call staged more than ${this.#limits.stagedBytes} bytes of results, state and messages; nothing it wrote was kept.`,
        { limit: "stagedBytesPerStep", max: this.#limits.stagedBytes }
      );
    }
  }

  /** Before an entry is appended to `store`. */
  addEntry(store: StoreBackend): void {
    const max = this.#limits.entries;
    this.#entries = (this.#entries ?? countEntries(store)) + 1;
    // The bound overcounts after removals: recount before refusing.
    if (this.#entries > max) this.#entries = countEntries(store) + 1;
    if (this.#entries > max) {
      this.#refuse(
        `The environment store holds at most ${max} entries per session; nothing this call wrote was kept.`,
        { limit: "storeEntriesPerSession", max }
      );
    }
  }

  #refuse(message: string, details: Record<string, unknown>): never {
    this.exceeded ??= new RoostError("payload_too_large", message, details);
    throw this.exceeded;
  }
}

const countEntries = (store: StoreBackend): number =>
  store.keys().reduce((n, k) => n + k.entries, 0);
