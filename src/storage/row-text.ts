/** @module One row's JSON text: the platform's limit on a stored value, checked before any statement. */

import { RoostError } from "../errors";
import { utf8Length } from "../json";

/**
 * The largest JSON text one value may take in a row. SQLite in a Durable
 * Object refuses rows over 2 MB; the rest is left for the row's other
 * columns, so a write fails here, with a clear error, before any statement.
 */
export const MAX_VALUE_BYTES = 1_900_000;

/** SQLite in a Durable Object allows at most 100 bound parameters per statement. */
export const MAX_BOUND_PARAMETERS = 100;

/**
 * `text` if it fits one row, or `payload_too_large` before anything is
 * written. `besides` is the row's other text (a key, an id), which counts
 * towards the same row limit.
 */
export const fitRow = (text: string, what: string, besides = ""): string => {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no encoding.
  if ((text.length + besides.length) * 3 > MAX_VALUE_BYTES) {
    const bytes = utf8Length(text) + utf8Length(besides);
    if (bytes > MAX_VALUE_BYTES) {
      throw new RoostError(
        "payload_too_large",
        `${what} takes ${bytes} bytes as JSON; one stored value may take at most ${MAX_VALUE_BYTES}. Split it into smaller values.`,
        // Not configurable: the platform's own limit on one stored value.
        { limit: "storedValueBytes", max: MAX_VALUE_BYTES, bytes }
      );
    }
  }
  return text;
};

/** JSON text of a value bound for one row (see `fitRow`). */
export const toRowText = (
  value: unknown,
  what: string,
  besides = ""
): string => {
  const text: string | undefined = JSON.stringify(value);
  if (text === undefined) {
    throw new RoostError("invalid_request", `${what} is not a JSON value.`);
  }
  return fitRow(text, what, besides);
};

/** `n` copies of one placeholder group, for a statement that binds many rows or ids. */
export const placeholders = (n: number, one = "?"): string =>
  Array.from({ length: n }, () => one).join(", ");

/**
 * Rows that hold a run of JSON texts (the event log, the transcript) join
 * them with a newline, which JSON text never holds unescaped.
 */
export const RUN_SEPARATOR = "\n";

/**
 * `texts` cut into runs that each fit one row, in order; `from` is a run's
 * first position in `texts`. Every text alone fits (checked when it was made).
 */
export const textRuns = (
  texts: readonly string[],
  bytesOf: (text: string) => number = utf8Length
): { from: number; texts: string[] }[] => {
  const runs: { from: number; texts: string[] }[] = [];
  let run: string[] = [];
  let from = 0;
  let bytes = 0;
  for (const [i, text] of texts.entries()) {
    // Three bytes per UTF-16 unit bound the size without encoding; the
    // exact size is taken only near the limit.
    const bound = text.length * 3 + 1;
    const size = bytes + bound <= MAX_VALUE_BYTES ? bound : bytesOf(text) + 1;
    if (run.length > 0 && bytes + size > MAX_VALUE_BYTES) {
      runs.push({ from, texts: run });
      run = [];
      from = i;
      bytes = 0;
    }
    run.push(text);
    bytes += size;
  }
  if (run.length > 0) runs.push({ from, texts: run });
  return runs;
};
