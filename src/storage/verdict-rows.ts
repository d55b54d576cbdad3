/** @module Judges' verdicts in the session's SQLite: one row per episode, step, component and question. */

import type { JsonValue } from "../json";
import type { Verdict, VerdictKey } from "../rewards/judges";
import { capContent } from "../tools/content";
import { hasTable } from "./tables";

/**
 * A judge's text is kept for a grader to read, not to be parsed again
 * (the parsed value is kept whole): a model that rambles for a megabyte
 * costs this much of the row, and the rest is cut with a marker.
 */
export const VERDICT_TEXT_BYTES = 8192;

/** A verdict as a grader reads it. */
export interface VerdictRow extends Verdict {
  step: number;
  path: string;
  at: number;
}

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
    capContent(verdict.text, VERDICT_TEXT_BYTES),
    at
  );
};

/**
 * The episode's verdicts, oldest step first; a step's kept verdicts
 * include those of tries that never committed (a step the client then
 * took differently), each under its own question's hash.
 */
export const listVerdicts = (
  sql: SqlStorage,
  episode: number,
  after: { step: number; limit: number }
): VerdictRow[] => {
  if (!hasTable(sql, "judge_verdicts")) return [];
  return sql
    .exec<{
      step: number;
      path: string;
      model: string;
      value: string;
      text: string;
      at: number;
    }>(
      "SELECT step, path, model, value, text, at FROM judge_verdicts WHERE episode = ? AND step > ? ORDER BY step, rowid LIMIT ?",
      episode,
      after.step,
      after.limit
    )
    .toArray()
    .map((r) => ({
      step: r.step,
      path: r.path,
      model: r.model,
      value: JSON.parse(r.value) as JsonValue,
      text: r.text,
      at: r.at
    }));
};
