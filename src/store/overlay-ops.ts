/** @module The writes an overlay replays onto its base at flush, in the order they were made. */

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

export const replayOps = (base: StoreBackend, ops: StoreOp[]): void => {
  for (const op of ops) {
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
  }
};
