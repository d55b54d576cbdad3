/** @module What one paged read cost: its pages, their bytes and the largest, and how many the byte budget cut. */

export interface Tally {
  pages: number;
  bytes: number;
  largest: number;
  /** Pages answered with `truncated: true`. */
  truncated: number;
}

export const newTally = (): Tally => ({
  pages: 0,
  bytes: 0,
  largest: 0,
  truncated: 0
});

export const count = (
  tally: Tally,
  bytes: number,
  truncated: boolean | undefined
): void => {
  tally.pages++;
  tally.bytes += bytes;
  tally.largest = Math.max(tally.largest, bytes);
  if (truncated) tally.truncated++;
};

/** A query string of the options that are set. */
export const query = (
  params: Record<string, string | number | undefined>
): string => {
  const set = Object.entries(params).filter(([, v]) => v !== undefined);
  return set.length === 0
    ? ""
    : `?${new URLSearchParams(set.map(([k, v]) => [k, String(v)])).toString()}`;
};
