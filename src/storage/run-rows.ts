/** @module Decision-tree runs and tree data in the session's SQLite: one row per run, one per episode's tree data. */

import type { ErrorBody } from "../errors";
import type { RunOutcome, RunState, RunStatus } from "../protocol";
import type { HistoryMessage, PromptTasks } from "../tree/types";
import { hasTable } from "./tables";

export interface RunRow {
  runId: string;
  episode: number;
  prompt: string;
  model: string;
  state: RunState;
  passes: number;
  decisions: number;
  cancelRequested: boolean;
  finalText?: string;
  outcome?: RunOutcome;
  error?: ErrorBody;
  /** The chat (AI SDK `useChat` id) that started the run, if one did. */
  chatId?: string;
  /** The first event seq that can belong to the run: its stream replays from here. */
  firstSeq?: number;
  createdAt: number;
  updatedAt: number;
}

export interface TreeRows {
  tasks: PromptTasks[];
  errors: Record<string, string[]>;
  /**
   * Elysia's conversation history: run prompts and what the tree said,
   * kept as it grows so a pass never reads the whole transcript.
   */
  history: HistoryMessage[];
}

interface RawRun extends Record<string, SqlStorageValue> {
  run_id: string;
  episode: number;
  prompt: string;
  model: string;
  state: string;
  passes: number;
  decisions: number;
  cancel_requested: number;
  final_text: string | null;
  outcome: string | null;
  error: string | null;
  chat_id: string | null;
  first_seq: number | null;
  created_at: number;
  updated_at: number;
}

const fromRaw = (r: RawRun): RunRow => ({
  runId: r.run_id,
  episode: r.episode,
  prompt: r.prompt,
  model: r.model,
  state: r.state as RunState,
  passes: r.passes,
  decisions: r.decisions,
  cancelRequested: r.cancel_requested === 1,
  ...(r.final_text === null ? {} : { finalText: r.final_text }),
  ...(r.outcome === null ? {} : { outcome: r.outcome as RunOutcome }),
  ...(r.error === null ? {} : { error: JSON.parse(r.error) as ErrorBody }),
  ...(r.chat_id === null ? {} : { chatId: r.chat_id }),
  ...(r.first_seq === null ? {} : { firstSeq: r.first_seq }),
  createdAt: r.created_at,
  updatedAt: r.updated_at
});

export const readRun = (sql: SqlStorage, runId: string): RunRow | undefined => {
  const [raw] = sql
    .exec<RawRun>("SELECT * FROM runs WHERE run_id = ?", runId)
    .toArray();
  return raw === undefined ? undefined : fromRaw(raw);
};

/** The run that is queued or running, if any (at most one per session). */
export const activeRun = (sql: SqlStorage): RunRow | undefined => {
  // Asked on every reset: a session that never ran a tree makes no table.
  if (!hasTable(sql, "runs")) return undefined;
  const [raw] = sql
    .exec<RawRun>(
      "SELECT * FROM runs WHERE state IN ('queued', 'running') ORDER BY created_at LIMIT 1"
    )
    .toArray();
  return raw === undefined ? undefined : fromRaw(raw);
};

export const writeRun = (sql: SqlStorage, run: RunRow): void => {
  sql.exec(
    // The cancel flag only ever rises: a pass that read the row before a
    // cancel must not lower it when it commits.
    `INSERT INTO runs (run_id, episode, prompt, model, state, passes,
      decisions, cancel_requested, final_text, outcome, error, chat_id,
      first_seq, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET state = excluded.state,
      passes = excluded.passes, decisions = excluded.decisions,
      cancel_requested = max(cancel_requested, excluded.cancel_requested),
      final_text = excluded.final_text, outcome = excluded.outcome,
      error = excluded.error, updated_at = excluded.updated_at`,
    run.runId,
    run.episode,
    run.prompt,
    run.model,
    run.state,
    run.passes,
    run.decisions,
    run.cancelRequested ? 1 : 0,
    run.finalText ?? null,
    run.outcome ?? null,
    run.error === undefined ? null : JSON.stringify(run.error),
    run.chatId ?? null,
    run.firstSeq ?? null,
    run.createdAt,
    run.updatedAt
  );
};

/** The run of chat `chatId` that is queued or running, if any. */
export const activeChatRun = (
  sql: SqlStorage,
  chatId: string
): RunRow | undefined => {
  const run = activeRun(sql);
  return run?.chatId === chatId ? run : undefined;
};

/** Cancel bypasses the queue: one flag, read between passes. */
export const requestCancel = (sql: SqlStorage, runId: string): void => {
  sql.exec(
    "UPDATE runs SET cancel_requested = 1 WHERE run_id = ? AND state IN ('queued', 'running')",
    runId
  );
};

export const readTreeRows = (sql: SqlStorage, episode: number): TreeRows => {
  const [raw] = sql
    .exec<{ tasks: string; errors: string; history: string }>(
      "SELECT tasks, errors, history FROM tree_data WHERE episode = ?",
      episode
    )
    .toArray();
  if (raw === undefined) return { tasks: [], errors: {}, history: [] };
  return {
    tasks: JSON.parse(raw.tasks) as PromptTasks[],
    errors: JSON.parse(raw.errors) as Record<string, string[]>,
    history: JSON.parse(raw.history) as HistoryMessage[]
  };
};

export const writeTreeRows = (
  sql: SqlStorage,
  episode: number,
  rows: TreeRows
): void => {
  sql.exec(
    "INSERT OR REPLACE INTO tree_data (episode, tasks, errors, history) VALUES (?, ?, ?, ?)",
    episode,
    JSON.stringify(rows.tasks),
    JSON.stringify(rows.errors),
    JSON.stringify(rows.history)
  );
};

/** Tree data of episodes before `episode`: small, so deleted at once on reset. */
export const dropTreeRowsBefore = (sql: SqlStorage, episode: number): void => {
  // A session that never ran a tree has no table to make for this.
  if (!hasTable(sql, "tree_data")) return;
  sql.exec("DELETE FROM tree_data WHERE episode < ?", episode);
};

/** The wire form. Tasks are those the run recorded. */
export const runStatus = (run: RunRow, tree: TreeRows): RunStatus => {
  const block = tree.tasks.findLast((b) => b.runId === run.runId);
  return {
    run_id: run.runId,
    state: run.state,
    prompt: run.prompt,
    model: run.model,
    passes: run.passes,
    cancel_requested: run.cancelRequested,
    ...(run.finalText === undefined ? {} : { final_text: run.finalText }),
    tasks: (block?.tasks ?? []) as unknown as RunStatus["tasks"],
    ...(run.outcome === undefined ? {} : { outcome: run.outcome }),
    ...(run.error === undefined ? {} : { error: run.error }),
    created_at: new Date(run.createdAt).toISOString(),
    updated_at: new Date(run.updatedAt).toISOString()
  };
};
