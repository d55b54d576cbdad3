/** @module Joins the parts of an entry that pages carry in pieces (`objects_from`, `object_count`) into the whole entry. */

import type { LocatedEntry } from "../protocol";
import { RoostClientError } from "./client-error";

/** A stored entry with all its objects: what the joiner hands out. */
export type WholeEntry = Omit<LocatedEntry, "objects_from" | "object_count">;

const where = (e: WholeEntry) => `${e.tool}/${e.name} entry ${e.index}`;

const gap = (message: string, details: object): RoostClientError =>
  new RoostClientError(
    "inconsistent_pages",
    `${message} Did the session change while it was read? Read again from the start.`,
    0,
    details
  );

/**
 * Takes one key's entries (or parts of them) in the order pages carry
 * them and gives back each entry once it is whole. A part must go on
 * exactly where the entry held so far ends: a missing or repeated run of
 * objects would otherwise reach the caller as a silently wrong entry.
 *
 * @example
 * const joiner = new EntryJoiner();
 * for (const part of page.entries) { const whole = joiner.push(part); if (whole) use(whole); }
 * joiner.finish(); // throws if the last entry never completed
 */
export class EntryJoiner {
  #held: { entry: WholeEntry; count: number } | undefined;

  /** Whether an entry is waiting for more of its objects. */
  get pending(): boolean {
    return this.#held !== undefined;
  }

  /** The whole entry once its last part is in; undefined while parts are missing. */
  push(part: LocatedEntry): WholeEntry | undefined {
    const { objects_from: from, object_count: count, ...entry } = part;
    const held = this.#held;
    if (from === undefined || from === 0) {
      if (held)
        throw gap(
          `${where(held.entry)} stopped at object ${held.entry.objects.length} of ${held.count}, and the next page began ${where(entry)}.`,
          { held: where(held.entry), next: where(entry) }
        );
      if (from === undefined) return entry;
      this.#held = {
        entry: { ...entry, objects: [...entry.objects] },
        count: count ?? entry.objects.length
      };
      return this.#complete();
    }
    if (
      !held ||
      held.entry.tool !== entry.tool ||
      held.entry.name !== entry.name ||
      held.entry.index !== entry.index ||
      held.entry.objects.length !== from ||
      (count !== undefined && count !== held.count)
    )
      throw gap(
        `A page went on with ${where(entry)} from object ${from}, but ${
          held
            ? `what was read so far is ${where(held.entry)} up to object ${held.entry.objects.length} of ${held.count}`
            : "its first objects were never read"
        }.`,
        { part: where(entry), objects_from: from }
      );
    // Not push(...objects): a part may hold more objects than a call's arguments.
    for (const object of entry.objects) held.entry.objects.push(object);
    return this.#complete();
  }

  /** Call when the pages end: an entry still waiting for objects is an error. */
  finish(): void {
    if (this.#held) throw this.unfinished();
  }

  /** The error for pages that ended before an entry was whole. */
  unfinished(): RoostClientError {
    const held = this.#held;
    return held
      ? gap(
          `The pages ended inside ${where(held.entry)}, at object ${held.entry.objects.length} of ${held.count}.`,
          { held: where(held.entry) }
        )
      : gap("The pages ended before any entry was read.", {});
  }

  #complete(): WholeEntry | undefined {
    const held = this.#held;
    if (!held || held.entry.objects.length < held.count) return undefined;
    this.#held = undefined;
    if (held.entry.objects.length > held.count)
      throw gap(
        `${where(held.entry)} came with ${held.entry.objects.length} objects, more than its ${held.count}.`,
        { entry: where(held.entry) }
      );
    return held.entry;
  }
}
