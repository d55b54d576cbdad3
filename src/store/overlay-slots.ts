/** @module The positions of one store key as an overlay sees them: ranges of base entries and entries written in memory. */

import { RoostError } from "../errors";
import type { Entry, ObjectFingerprint } from "./types";

/** An entry written during the mutation, not yet in the base. */
export interface NewSlot {
  entry: Entry;
  fingerprints: (ObjectFingerprint | null)[];
  /** Order of writes within the overlay: `recent` sorts on it. */
  seq: number;
}

/** What sits at a position: a base entry (by its base position) or a new one. */
export type Occupant =
  | { kind: "base"; position: number }
  | { kind: "new"; slot: NewSlot };

/** A stretch of positions, as `read` hands them out in order. */
export type Run =
  | { kind: "base"; start: number; count: number }
  | { kind: "new"; slot: NewSlot };

/**
 * Base entries are kept as ranges of positions, never one item per entry,
 * so touching a key with 100 000 entries costs as much as touching one with
 * ten: every operation walks the segments, whose number grows only with the
 * writes made to the key.
 */
type Segment =
  | { kind: "base"; start: number; count: number }
  | { kind: "new"; slots: NewSlot[] };

const size = (segment: Segment): number =>
  segment.kind === "base" ? segment.count : segment.slots.length;

/**
 * @example
 * const slots = new KeySlots(100_000); // one range, whatever the count
 * slots.removeAt(0);
 * slots.at(0); // { kind: "base", position: 1 }
 */
export class KeySlots {
  #segments: Segment[];
  #length: number;

  /** Starts as the key's base list: positions `0 … baseEntries - 1`. */
  constructor(baseEntries: number) {
    this.#segments =
      baseEntries > 0 ? [{ kind: "base", start: 0, count: baseEntries }] : [];
    this.#length = baseEntries;
  }

  get length(): number {
    return this.#length;
  }

  at(position: number): Occupant {
    const { segment, offset } = this.#locate(position);
    return segment.kind === "base"
      ? { kind: "base", position: segment.start + offset }
      : { kind: "new", slot: segment.slots[offset]! };
  }

  append(slot: NewSlot): void {
    const last = this.#segments.at(-1);
    if (last?.kind === "new") last.slots.push(slot);
    else this.#segments.push({ kind: "new", slots: [slot] });
    this.#length += 1;
  }

  /** Puts `slot` at `position` and returns what was there. */
  set(position: number, slot: NewSlot): Occupant {
    return this.#splice(position, slot);
  }

  /** Removes the entry at `position` and returns what was there. */
  removeAt(position: number): Occupant {
    return this.#splice(position, undefined);
  }

  clear(): void {
    this.#segments = [];
    this.#length = 0;
  }

  /** The current index of a base position, or undefined once it was removed or replaced. */
  indexOfBase(position: number): number | undefined {
    let index = 0;
    for (const segment of this.#segments) {
      if (
        segment.kind === "base" &&
        position >= segment.start &&
        position < segment.start + segment.count
      ) {
        return index + position - segment.start;
      }
      index += size(segment);
    }
    return undefined;
  }

  /** Every new entry with its current index. */
  newSlots(): { slot: NewSlot; index: number }[] {
    const found: { slot: NewSlot; index: number }[] = [];
    let index = 0;
    for (const segment of this.#segments) {
      if (segment.kind === "new") {
        segment.slots.forEach((slot, i) => {
          found.push({ slot, index: index + i });
        });
      }
      index += size(segment);
    }
    return found;
  }

  /** Positions `offset … offset + limit - 1` as runs, so base entries are read in batches. */
  read(offset: number, limit: number): Run[] {
    const runs: Run[] = [];
    const end = Math.min(this.#length, offset + Math.max(0, limit));
    let index = 0;
    for (const segment of this.#segments) {
      const from = Math.max(offset, index);
      const to = Math.min(end, index + size(segment));
      if (from < to) {
        if (segment.kind === "base") {
          const start = segment.start + from - index;
          runs.push({ kind: "base", start, count: to - from });
        } else {
          for (const slot of segment.slots.slice(from - index, to - index)) {
            runs.push({ kind: "new", slot });
          }
        }
      }
      index += size(segment);
      if (index >= end) break;
    }
    return runs;
  }

  #locate(position: number): {
    segment: Segment;
    index: number;
    offset: number;
  } {
    let start = 0;
    for (const [index, segment] of this.#segments.entries()) {
      const n = size(segment);
      if (position >= start && position < start + n) {
        return { segment, index, offset: position - start };
      }
      start += n;
    }
    throw new RoostError(
      "index_out_of_range",
      `No entry at position ${position}; the key has ${this.#length}.`
    );
  }

  #splice(position: number, slot: NewSlot | undefined): Occupant {
    const found = this.#locate(position);
    const { segment, index, offset } = found;
    if (segment.kind === "new") {
      const [old] =
        slot === undefined
          ? segment.slots.splice(offset, 1)
          : segment.slots.splice(offset, 1, slot);
      if (segment.slots.length === 0) this.#segments.splice(index, 1);
      if (slot === undefined) this.#length -= 1;
      return { kind: "new", slot: old! };
    }
    // A base range is cut around the position; empty pieces are dropped.
    const middle: Segment[] =
      slot === undefined ? [] : [{ kind: "new", slots: [slot] }];
    const pieces: Segment[] = [
      { kind: "base", start: segment.start, count: offset },
      ...middle,
      {
        kind: "base",
        start: segment.start + offset + 1,
        count: segment.count - offset - 1
      }
    ];
    this.#segments.splice(index, 1, ...pieces.filter((p) => size(p) > 0));
    if (slot === undefined) this.#length -= 1;
    return { kind: "base", position: segment.start + offset };
  }
}
