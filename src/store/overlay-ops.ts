/** @module The writes a store overlay replays onto its base at flush: entry counters, then every write in order. */

import type { Entry, ObjectFingerprint, StoreBackend } from "./types";

export type Prints = (ObjectFingerprint | null)[];

/**
 * One write, with positions as they were when it was made. Replaying the
 * log (rather than diffing final lists) gives the base the same positions
 * and the same order of last writes, so `recent` agrees after a flush.
 */
export type StoreOp =
  | { op: "createKey"; tool: string; name: string }
  | { op: "append"; tool: string; name: string; entry: Entry; prints: Prints }
  | {
      op: "set";
      tool: string;
      name: string;
      position: number;
      entry: Entry;
      prints: Prints;
    }
  | { op: "removeAt"; tool: string; name: string; position: number }
  | { op: "clear"; tool: string; name: string };

/** What waits to reach the base. */
export class OverlayLog {
  readonly #ops: StoreOp[] = [];
  readonly #counters = new Map<
    string,
    { tool: string; name: string; value: number }
  >();

  get empty(): boolean {
    return this.#ops.length === 0 && this.#counters.size === 0;
  }

  push(op: StoreOp): void {
    this.#ops.push(op);
  }

  counter(tool: string, name: string): number | undefined {
    return this.#counters.get(JSON.stringify([tool, name]))?.value;
  }

  setCounter(tool: string, name: string, value: number): void {
    this.#counters.set(JSON.stringify([tool, name]), { tool, name, value });
  }

  /** Counters first: they live apart from keys, so their order does not matter. */
  replay(base: StoreBackend): void {
    for (const { tool, name, value } of this.#counters.values()) {
      base.setEntryCounter(tool, name, value);
    }
    for (const op of this.#ops) replayOp(base, op);
  }
}

const replayOp = (base: StoreBackend, op: StoreOp): void => {
  const { tool, name } = op;
  switch (op.op) {
    case "createKey":
      base.createKey(tool, name);
      break;
    case "append":
      base.append(tool, name, op.entry, op.prints);
      break;
    case "set":
      base.set(tool, name, op.position, op.entry, op.prints);
      break;
    case "removeAt":
      base.removeAt(tool, name, op.position);
      break;
    case "clear":
      base.clear(tool, name);
      break;
  }
};
