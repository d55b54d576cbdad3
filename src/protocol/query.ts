/** @module Integers and cursors read from path and query strings. */

import * as z from "zod";
import { lazy } from "../lazy";

/**
 * An integer written in a path or query string. Stricter than
 * `z.coerce.number()`, which reads "" as 0 and "1e3" or "0x10" as numbers.
 * The default sits on the string side so generated OpenAPI parameters
 * document a string with a string default.
 */
export const integerString = (range: {
  min: number;
  max: number;
  default?: number;
}) => {
  const digits = z.string().regex(/^-?\d+$/, "Expected an integer.");
  const number = z.number().int().min(range.min).max(range.max);
  return range.default === undefined
    ? digits.transform(Number).pipe(number)
    : digits.default(String(range.default)).transform(Number).pipe(number);
};

/** An opaque page cursor, given back as `next_cursor`. */
export const CursorSchema = lazy(() => z.string().min(1).max(1024));

/** Page size of paged reads. */
export const PAGE_LIMIT = { default: 100, max: 1000 } as const;

export const pageLimit = () =>
  integerString({ min: 1, max: PAGE_LIMIT.max, default: PAGE_LIMIT.default });
