/** @module The model gateway's calls in the session's SQLite: one row a call, per episode. */

import { utf8Length } from "../json";
import type { ReadBudget } from "../protocol/read-budget";
import { hasTable } from "./tables";

/**
 * What the next call of the episode compares itself with, kept beside the
 * record so it is read without the record: how many request messages the
 * call sent and a hash of them, and the length and hash of its whole token
 * sequence (prompt, then completion).
 */
export interface CallMark {
  call: number;
  messages: number;
  messagesHash: string;
  tokens: number;
  tokensHash: string;
  /** The episode's calls so far: tokens (as the upstream counted them) and recorded bytes. */
  usedTokens: number;
  usedBytes: number;
}

/**
 * The episode's last recorded call, or none. Asked only on the way to a
 * call, so the table is made here on first use (tables.ts) rather than
 * looked up first: a lookup reads every row of the schema, billed.
 */
export const lastCall = (
  sql: SqlStorage,
  episode: number
): CallMark | undefined => {
  const row = sql
    .exec<{ call: number; next: string }>(
      "SELECT call, next FROM model_calls WHERE episode = ? ORDER BY call DESC LIMIT 1",
      episode
    )
    .toArray()[0];
  return row === undefined
    ? undefined
    : { ...(JSON.parse(row.next) as Omit<CallMark, "call">), call: row.call };
};

export const writeCall = (
  sql: SqlStorage,
  episode: number,
  mark: CallMark,
  body: string
): void => {
  const { call, ...next } = mark;
  sql.exec(
    "INSERT INTO model_calls (episode, call, next, body) VALUES (?, ?, ?, ?)",
    episode,
    call,
    JSON.stringify(next),
    body
  );
};

/** The episode's calls after `after`, oldest first, as stored text, while `budget` admits them. */
export const readCalls = (
  sql: SqlStorage,
  episode: number,
  after: number,
  limit: number,
  budget: ReadBudget
): { bodies: string[]; more: boolean } => {
  if (!hasTable(sql, "model_calls")) return { bodies: [], more: false };
  const bodies: string[] = [];
  const rows = sql.exec<{ body: string }>(
    "SELECT body FROM model_calls WHERE episode = ? AND call > ? ORDER BY call LIMIT ?",
    episode,
    after,
    limit + 1
  );
  for (const { body } of rows) {
    if (bodies.length === limit || !budget.take(utf8Length(body)))
      return { bodies, more: true };
    bodies.push(body);
  }
  return { bodies, more: false };
};
