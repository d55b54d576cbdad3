/** @module Splitting a large result event so no event row nears SQLite's 2 MB limit. */

import { utf8Length } from "../json";

/** Events above this size are split; objects are at most ~1.9 MB each, so parts stay under a row. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * Returns the result event's data as one or more parts. Parts share tool,
 * name and index, carry `part: { index, count }`, and their objects
 * concatenate in order to the stored entry's.
 */
export const splitResult = (
  data: Record<string, unknown> & { objects: unknown[] }
): Record<string, unknown>[] => {
  if (utf8Length(JSON.stringify(data)) <= MAX_EVENT_BYTES) return [data];
  const { objects, ...rest } = data;
  const overhead = utf8Length(JSON.stringify(rest)) + 64;
  const chunks: unknown[][] = [];
  let current: unknown[] = [];
  let size = overhead;
  for (const object of objects) {
    const bytes = utf8Length(JSON.stringify(object)) + 1;
    if (current.length > 0 && size + bytes > MAX_EVENT_BYTES) {
      chunks.push(current);
      current = [];
      size = overhead;
    }
    current.push(object);
    size += bytes;
  }
  chunks.push(current);
  return chunks.map((part, index) => ({
    ...rest,
    objects: part,
    part: { index, count: chunks.length }
  }));
};
