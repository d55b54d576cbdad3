/** @module Reading a large table in bounded pieces, each statement read whole. */

/** A value's size as a chunk counts it: text and blobs by length, numbers as 8. */
const sizeOf = (value: SqlStorageValue): number =>
  typeof value === "string"
    ? value.length
    : value instanceof ArrayBuffer
      ? value.byteLength
      : 8;

/** Rows read per statement: each page is read whole, so no statement stays open on a table a later DROP needs. */
const PAGE_ROWS = 256;

/**
 * Reads `[key, ...values]` rows page by page after `after` until about
 * `maxBytes` or `maxRows` were read; `query` takes (after, limit) and
 * orders by its first column.
 */
export const readPages = (
  sql: SqlStorage,
  query: string,
  params: SqlStorageValue[],
  after: number,
  maxBytes: number,
  maxRows: number
): { rows: SqlStorageValue[][]; next: number; exhausted: boolean } => {
  const rows: SqlStorageValue[][] = [];
  let next = after;
  let bytes = 0;
  for (;;) {
    const limit = Math.min(PAGE_ROWS, maxRows - rows.length);
    // Read whole (the rest of a page is read again next time, if wanted).
    const page = [...sql.exec(query, ...params, next, limit).raw()];
    for (const row of page) {
      rows.push(row);
      next = Number(row[0]);
      for (const value of row) bytes += sizeOf(value);
      if (bytes >= maxBytes || rows.length >= maxRows)
        return { rows, next, exhausted: false };
    }
    if (page.length < limit) return { rows, next, exhausted: true };
  }
};
