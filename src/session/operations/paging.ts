/**
 * @module Offset cursors of the paged reads: the next offset as a decimal
 * string; inside a key, an entry and, when a page ended inside it, the
 * object to go on from (`12.340`).
 */

import { RoostError } from "../../errors";

const invalid = (): RoostError =>
  new RoostError(
    "invalid_request",
    "Invalid cursor: pass back the next_cursor of a previous page.",
    { field: "cursor" }
  );

const DECIMAL = /^\d{1,15}$/;

export const offsetOf = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0;
  if (!DECIMAL.test(cursor)) throw invalid();
  return Number(cursor);
};

/** An entry position in a key's cursor: `N`, or `N.M` for entry N from its object M. */
export const entryPositionOf = (
  cursor: string | undefined
): { index: number; object: number } => {
  if (cursor === undefined) return { index: 0, object: 0 };
  const [entry = "", object = "0", ...rest] = cursor.split(".");
  if (rest.length > 0) throw invalid();
  return { index: offsetOf(entry), object: offsetOf(object) };
};

export const entryCursor = (at: { index: number; object: number }): string =>
  at.object === 0 ? String(at.index) : `${at.index}.${at.object}`;
