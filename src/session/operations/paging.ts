/** @module Offset cursors of the paged reads: the next offset as a decimal string. */

import { RoostError } from "../../errors";

export const offsetOf = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0;
  const n = Number(cursor);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RoostError(
      "invalid_request",
      "Invalid cursor: pass back the next_cursor of a previous page.",
      { field: "cursor" }
    );
  }
  return n;
};
