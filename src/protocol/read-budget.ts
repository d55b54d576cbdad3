/**
 * @module The one rule every read follows: a page is bounded in bytes as
 * well as in count. A page takes whole units (a stored object, a message,
 * an event, a state value, a key) until the next would pass its budget; the
 * first always goes in, so a page always makes progress. No unit is larger
 * than a stored row (1.9 MB), so no page passes `READ_BYTES.max`.
 */

import * as z from "zod";
import { lazy } from "../lazy";
import { integerString } from "./query";

const KIB = 1024;
const MIB = 1024 * KIB;

/** Byte budget of one read: what `max_bytes` defaults to, and its range. */
export const READ_BYTES = { default: MIB, min: KIB, max: 4 * MIB } as const;

/**
 * What a page says besides its units (field names, a cursor of up to
 * 1 KiB, `truncated`) is not counted, so a budget at the maximum keeps this
 * much back for it: units filling 4 MiB to the byte made a 4 MiB + 50 B
 * answer of `/messages`.
 */
const ENVELOPE_BYTES = 4 * KIB;
const MAX_UNIT_BYTES = READ_BYTES.max - ENVELOPE_BYTES;

/** `max_bytes` in a query string. */
export const maxBytesParam = () =>
  integerString({ min: READ_BYTES.min, max: READ_BYTES.max })
    .optional()
    .describe(
      "The page's byte budget, 1024 to 4194304 (1 MiB when absent). A page holds whole units (objects, messages, events, values, keys) until the next would pass it, and always its first."
    );

/** `max_bytes` as operations take it (every transport checked it already). */
export const MaxBytesSchema = lazy(() =>
  z.number().int().min(READ_BYTES.min).max(READ_BYTES.max)
);

/**
 * Counts what a page takes. `take(bytes)` admits a unit if it fits what is
 * left, and always the page's first; once one is refused the page is cut
 * and every later `take` is refused too, so a page never skips a unit to
 * fit a smaller one after it.
 *
 * @example
 * const budget = new ReadBudget(q.max_bytes);
 * for (const row of rows) if (!budget.take(row.bytes)) break;
 * return { items, ...(budget.cut ? { truncated: true } : {}) };
 */
export class ReadBudget {
  #left: number;
  #units = 0;
  #cut = false;

  constructor(maxBytes: number = READ_BYTES.default) {
    this.#left =
      maxBytes > MAX_UNIT_BYTES && maxBytes <= READ_BYTES.max
        ? MAX_UNIT_BYTES
        : maxBytes;
  }

  take(bytes: number): boolean {
    if (this.#cut || (this.#units > 0 && bytes > this.#left)) {
      this.#cut = true;
      return false;
    }
    this.#left -= bytes;
    this.#units++;
    return true;
  }

  /** Whether a unit was refused: the page ended on bytes, not on its count or the data's end. */
  get cut(): boolean {
    return this.#cut;
  }

  /** Bytes left before the budget is spent. */
  get left(): number {
    return this.#left;
  }

  /** Units taken so far. */
  get units(): number {
    return this.#units;
  }
}

/** `{ truncated: true }` when the budget cut the page; nothing otherwise. */
export const truncatedField = (budget: ReadBudget): { truncated?: true } =>
  budget.cut ? { truncated: true } : {};

/** The field every paged response adds: present, and true, only when bytes ended the page. */
export const truncatedSchema = lazy(() =>
  z
    .literal(true)
    .optional()
    .describe(
      "Present when the page's byte budget (max_bytes) ended it before its count; next_cursor says where to go on."
    )
);
