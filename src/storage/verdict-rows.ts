/** @module Judges' verdicts in the session's SQLite: one row per episode, step, component and question. */

import type { JsonValue } from "../json";
import type { Verdict, VerdictKey } from "../rewards/judges";
import { capText } from "../tools/content";
import { hasTable } from "./tables";

/**
 * A judge's text is kept as the record of why, not to be parsed again
 * (the parsed value is kept whole): a model that rambles for a megabyte
 * costs this much of the row, and the rest is cut with a marker.
 */
export const VERDICT_TEXT_BYTES = 8192;

export const readVerdict = (
  sql: SqlStorage,
  episode: number,
  key: VerdictKey
): Verdict | undefined => {
  // Asking must not make the table (tables.ts): a session without judges has none.
  if (!hasTable(sql, "judge_verdicts")) return undefined;
  const row = sql
    .exec<{ model: string; value: string; text: string }>(
      "SELECT model, value, text FROM judge_verdicts WHERE episode = ? AND step = ? AND path = ? AND hash = ?",
      episode,
      key.step,
      key.path,
      key.hash
    )
    .toArray()[0];
  return row === undefined
    ? undefined
    : {
        model: row.model,
        value: JSON.parse(row.value) as JsonValue,
        text: row.text
      };
};

/** Writes a verdict on its own, outside any commit: durable as soon as the judge answered. */
export const writeVerdict = (
  sql: SqlStorage,
  episode: number,
  key: VerdictKey,
  verdict: Verdict,
  at: number
): void => {
  sql.exec(
    `INSERT INTO judge_verdicts (episode, step, path, hash, model, value, text, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (episode, step, path, hash) DO UPDATE SET
       model = excluded.model, value = excluded.value, text = excluded.text, at = excluded.at`,
    episode,
    key.step,
    key.path,
    key.hash,
    verdict.model,
    JSON.stringify(verdict.value),
    capText(verdict.text, VERDICT_TEXT_BYTES),
    at
  );
};
