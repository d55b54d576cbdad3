/** @module The session's one row: which environment, which task, where the episode stands. */

export interface SessionRow {
  sessionId: string;
  environment: string;
  /** The task given at creation: the default of every reset. */
  task: unknown;
  /** The state given at creation: the default of every reset (none if undefined). */
  initialState?: Record<string, unknown>;
  episode: number;
  /** The task of the running episode. */
  episodeTask: unknown;
  /** The tools the running episode's reset chose; undefined offers them all. */
  episodeTools?: string[];
  steps: number;
  reward: number;
  total: number;
  done: boolean;
  truncated: boolean;
  createdAt: number;
  lastUsedAt: number;
  /** The mutation in flight, if the object died before it committed. */
  inflight: Inflight | null;
}

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
  return {
    sessionId: String(raw.session_id),
    environment: String(raw.environment),
    task: parse(raw.task),
    ...(typeof raw.initial_state === "string"
      ? { initialState: JSON.parse(raw.initial_state) }
      : {}),
    episode: Number(raw.episode),
    episodeTask: parse(raw.episode_task),
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
    inflight: (parse(raw.inflight) as Inflight | undefined) ?? null
  };
};

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

export const insertSessionRow = (sql: SqlStorage, row: SessionRow): void => {
  sql.exec(
    `INSERT INTO session (id, session_id, environment, task, initial_state, episode, episode_task,
       episode_tools, steps, reward, total, done, truncated, created_at, last_used_at, inflight)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
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
    row.lastUsedAt
  );
};

/**
 * A commit's one statement on the row: the episode fields and last use,
 * and the end of the in-flight mark (the mutation is no longer in flight).
 */
export const writeEpisode = (sql: SqlStorage, row: SessionRow): void => {
  sql.exec(
    `UPDATE session SET episode = ?, episode_task = ?, episode_tools = ?, steps = ?,
       reward = ?, total = ?, done = ?, truncated = ?, last_used_at = ?, inflight = NULL
     WHERE id = 1`,
    row.episode,
    json(row.episodeTask),
    json(row.episodeTools),
    row.steps,
    row.reward,
    row.total,
    row.done ? 1 : 0,
    row.truncated ? 1 : 0,
    row.lastUsedAt
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
