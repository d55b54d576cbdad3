/**
 * @module The session's one row: which environment, which task, where the
 * episode stands. A step does not rewrite it: its commit folds the fields
 * a step changes into the event-log row it writes anyway (event-log.ts),
 * and the row is read as the table's checkpoint plus the newest fold after
 * it. A reset, a commit that streamed before it committed, retention
 * reaching past the checkpoint and a commit after MAX_FOLDS folds write
 * the table itself. A step's state values and messages ride in the same
 * fold (state-folds.ts).
 */

import type { EpisodeRecord } from "../environment/episode-machine";
import type { TaskRef } from "../environment/task";
import type { FoldedMessages } from "./state-folds";
import { hasTable } from "./tables";

/**
 * The columns of the dataset tasks (split, index) the creation's task and
 * the running episode's came from, for the task statistics; NULL in
 * sessions from before them, whose episodes count once a reset names an
 * index. Their migration (schema.ts).
 */
export const TASK_REF_COLUMNS: readonly string[] = [
  "ALTER TABLE session ADD COLUMN task_ref TEXT",
  "ALTER TABLE session ADD COLUMN episode_ref TEXT"
];

/** Where the episode stands (the one record the episode's rules keep), and the session around it. */
export interface SessionRow extends EpisodeRecord {
  sessionId: string;
  environment: string;
  /** The task given at creation: the default of every reset. */
  task: unknown;
  /** The dataset task the creation's task came from: the default of every reset (none if null or undefined). */
  taskRef?: TaskRef | null;
  /** The dataset task the running episode plays, when it came from one: its outcome goes to the task statistics. */
  episodeRef?: TaskRef | null;
  /** The state given at creation: the default of every reset (none if undefined). */
  initialState?: Record<string, unknown>;
  createdAt: number;
  lastUsedAt: number;
  /** The mutation in flight, if the object died before it committed. */
  inflight: Inflight | null;
  /**
   * The newest seq the table itself was written at (0 when never since its
   * creation); a fold in a later event row is newer than it.
   */
  asOf?: number;
  /** Commits folded since `asOf` (0 or undefined: none). */
  folds?: number;
}

/**
 * Folded commits after which the next commit writes the table instead. A
 * cold read of state reads every fold since the table (state-folds.ts), so
 * this bounds it to 32 rows of the log, while the checkpoint it forces
 * (the session row and each state key changed since) costs a counter two
 * rows every 33 steps, 0.06 a step. Rows read cost a thousandth of rows
 * written, so what sets the bound is a cold read's time, not its price.
 */
export const MAX_FOLDS = 32;

/** What a step changes of the row, folded into its event-log row. */
export interface Fold {
  episode: number;
  steps: number;
  reward: number;
  total: number;
  done: boolean;
  truncated: boolean;
  at: number;
  /**
   * Which fold since the table this is, from 1; absent in folds earlier
   * versions wrote, which wrote every state value to its table.
   */
  n?: number;
  /** The state values the commit set, `[key, JSON text]` in the order first set. */
  state?: [string, string][];
  /** The messages the commit appended, unless it wrote them to the transcript table. */
  messages?: FoldedMessages;
}

/**
 * The fields of `row` a commit folds into its event-log row, with the
 * state values it set and the messages it appended, as text. `row.folds`
 * counts this fold already.
 */
export const foldOf = (
  row: SessionRow,
  state: ReadonlyMap<string, string>,
  messages?: FoldedMessages
): string =>
  JSON.stringify({
    episode: row.episode,
    steps: row.steps,
    reward: row.reward,
    total: row.total,
    done: row.done,
    truncated: row.truncated,
    at: row.lastUsedAt,
    n: row.folds ?? 1,
    ...(state.size > 0 ? { state: [...state] } : {}),
    ...(messages === undefined ? {} : { messages })
  } satisfies Fold);

/** Written when a mutation starts; cleared by its commit. */
export interface Inflight {
  kind: string;
  /** The episode the mutation writes into (a reset writes the next one). */
  episode: number;
  /** First event seq the mutation could have written. */
  firstSeq: number;
  step?: number;
  /** `tool\u0000name` → highest entry counter handed out (see overlay onCounter). */
  counters: Record<string, number>;
}

type Raw = Record<string, SqlStorageValue>;

const parse = (text: SqlStorageValue | undefined): unknown =>
  typeof text === "string" ? JSON.parse(text) : undefined;

export const readSessionRow = (sql: SqlStorage): SessionRow | undefined => {
  const [raw] = sql.exec<Raw>("SELECT * FROM session WHERE id = 1").toArray();
  if (raw === undefined) return undefined;
  const row: SessionRow = {
    sessionId: String(raw.session_id),
    environment: String(raw.environment),
    task: parse(raw.task),
    ...(typeof raw.initial_state === "string"
      ? { initialState: JSON.parse(raw.initial_state) }
      : {}),
    episode: Number(raw.episode),
    episodeTask: parse(raw.episode_task),
    taskRef: (parse(raw.task_ref) as TaskRef | undefined) ?? null,
    episodeRef: (parse(raw.episode_ref) as TaskRef | undefined) ?? null,
    ...(typeof raw.episode_tools === "string"
      ? { episodeTools: JSON.parse(raw.episode_tools) as string[] }
      : {}),
    steps: Number(raw.steps),
    reward: Number(raw.reward),
    total: Number(raw.total),
    done: raw.done === 1,
    truncated: raw.truncated === 1,
    createdAt: Number(raw.created_at),
    lastUsedAt: Number(raw.last_used_at),
    inflight: (parse(raw.inflight) as Inflight | undefined) ?? null,
    asOf: Number(raw.as_of ?? 0)
  };
  // Steps since the table was written: the newest fold (a backwards walk
  // of the log's primary key, past at most the few rows no commit wrote).
  // A session that never wrote an event has no log yet, and asking makes none.
  if (!hasTable(sql, "events")) return row;
  const [folded] = sql
    .exec<{ session: string }>(
      "SELECT session FROM events WHERE seq > ? AND session IS NOT NULL ORDER BY seq DESC LIMIT 1",
      row.asOf ?? 0
    )
    .toArray();
  if (folded === undefined) return row;
  const fold = JSON.parse(folded.session) as Fold;
  // A reset always writes the table, so a fold of another episode is stale.
  if (fold.episode !== row.episode) return row;
  return {
    ...row,
    // Folds an earlier version wrote are not counted: the next commit
    // writes the table, and the count starts from there.
    folds: fold.n ?? MAX_FOLDS,
    steps: fold.steps,
    reward: fold.reward,
    total: fold.total,
    done: fold.done,
    truncated: fold.truncated,
    lastUsedAt: Math.max(row.lastUsedAt, fold.at)
  };
};

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

/**
 * Writes a new session's row, its idle timer (schedule.ts) and the schema
 * version it is written in (schema.ts) in one statement; the table itself
 * is made by this first use of it (tables.ts). `row.asOf` is the seq of
 * the log it starts after (a fork's copy may start with its source's).
 */
export const insertSessionRow = (
  sql: SqlStorage,
  row: SessionRow,
  ttlDue: number,
  schemaVersion: number
): void => {
  sql.exec(
    `INSERT INTO session (id, session_id, environment, task, initial_state, episode, episode_task,
       episode_tools, steps, reward, total, done, truncated, created_at, last_used_at, inflight,
       ttl_due, schema_version, task_ref, episode_ref, as_of)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
    row.sessionId,
    row.environment,
    json(row.task),
    json(row.initialState),
    row.episode,
    json(row.episodeTask),
    json(row.episodeTools),
    row.steps,
    row.reward,
    row.total,
    row.done ? 1 : 0,
    row.truncated ? 1 : 0,
    row.createdAt,
    row.lastUsedAt,
    ttlDue,
    schemaVersion,
    json(row.taskRef ?? undefined),
    json(row.episodeRef ?? undefined),
    row.asOf ?? null
  );
};

/**
 * The table's checkpoint, in one statement: the episode fields and last
 * use as of seq `asOf`, and the end of the in-flight mark (the mutation is
 * no longer in flight). Sets `row.asOf`, and `row.folds` to none. The
 * state values folded since must be written with it (state-folds.ts
 * `checkpoint`).
 */
export const writeEpisode = (
  sql: SqlStorage,
  row: SessionRow,
  asOf: number
): void => {
  row.asOf = asOf;
  row.folds = 0;
  sql.exec(
    `UPDATE session SET episode = ?, episode_task = ?, episode_tools = ?, steps = ?,
       reward = ?, total = ?, done = ?, truncated = ?, last_used_at = ?, inflight = NULL,
       as_of = ?, episode_ref = ?
     WHERE id = 1`,
    row.episode,
    json(row.episodeTask),
    json(row.episodeTools),
    row.steps,
    row.reward,
    row.total,
    row.done ? 1 : 0,
    row.truncated ? 1 : 0,
    row.lastUsedAt,
    asOf,
    json(row.episodeRef ?? undefined)
  );
};

export const writeInflight = (
  sql: SqlStorage,
  inflight: Inflight | null
): void => {
  sql.exec("UPDATE session SET inflight = ? WHERE id = 1", json(inflight));
};

export const touchSession = (sql: SqlStorage, at: number): void => {
  sql.exec("UPDATE session SET last_used_at = ? WHERE id = 1", at);
};
