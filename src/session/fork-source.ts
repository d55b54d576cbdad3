/**
 * @module Forking, as the source sees it, and the shapes both sides share.
 * The source snapshots its current episode between two mutations and
 * serves the snapshot in chunks while it goes on serving steps; the copies
 * take them (fork-import.ts). Whoever drives the fork
 * (http/fork-driver.ts) moves the chunks between them.
 */

import * as z from "zod";
import type { Environment } from "../environment/define-environment";
import { RoostError } from "../errors";
import { lazy } from "../lazy";
import {
  dropExpiredSnapshots,
  dropSnapshot,
  readSnapshot,
  type SnapshotInfo,
  snapshotSize,
  takeSnapshot,
  touchSnapshot
} from "../storage/fork-copy";
import * as idempotency from "../storage/idempotency";
import type { SessionRow } from "../storage/session-row";
import { foldsOf, writeFolded } from "../storage/state-folds";
import type { SessionShared } from "./shared";

/** A snapshot no driver came back for (its worker died) is dropped after this. */
export const SNAPSHOT_TTL_MS = 10 * 60 * 1000;
/**
 * A chunk's size: far below RPC's message limit, and small enough that the
 * driver's writes of one chunk to 8 copies at once hold 28 MiB of heap at
 * most (test/giant/request-heap.test.ts; 4 MiB chunks held 62).
 */
export const CHUNK_BYTES = 1024 * 1024;
export const CHUNK_ROWS = 20_000;

/** Where the source stood when it was copied: the copy's session row, but its id. */
const TaskRefSchema = lazy(() =>
  z.object({ split: z.string().nullable(), index: z.number().int().min(0) })
);

export const ForkOriginSchema = lazy(() =>
  z.object({
    source: z.string(),
    seq: z.number().int().nonnegative(),
    environment: z.string(),
    task: z.unknown(),
    initialState: z.record(z.string(), z.unknown()).optional(),
    episode: z.number().int().nonnegative(),
    episodeTask: z.unknown(),
    episodeTools: z.array(z.string()).optional(),
    steps: z.number().int().nonnegative(),
    reward: z.number(),
    total: z.number(),
    done: z.boolean(),
    truncated: z.boolean(),
    /** The dataset tasks of the creation and of the episode (session-row.ts): a copy's ended episode counts for its task too. */
    taskRef: TaskRefSchema().nullable().optional(),
    episodeRef: TaskRefSchema().nullable().optional(),
    /** Every table copied, by position: Roost's, then the environment's own (made again in the copy). */
    tables: z.array(
      z.object({
        name: z.string(),
        columns: z.array(z.string()),
        create: z.string().optional(),
        later: z.array(z.string()).optional()
      })
    )
  })
);
export type ForkOrigin = z.infer<ReturnType<typeof ForkOriginSchema>>;

/** Where a fork's reading stands: the position of a snapshot table and the last row read of it. */
export const ForkCursorSchema = lazy(() =>
  z.object({
    table: z.number().int().nonnegative(),
    after: z.number().int()
  })
);
export type ForkCursor = z.infer<ReturnType<typeof ForkCursorSchema>>;

/** Where every fork starts reading: the first table, from its first row. */
export const FIRST_CHUNK: ForkCursor = { table: 0, after: 0 };

/** One table's rows, each as the values of `origin.tables[table].columns`. */
export interface ChunkPart {
  table: number;
  rows: SqlStorageValue[][];
}

export interface ForkChunk {
  parts: ChunkPart[];
  next: ForkCursor;
  done: boolean;
}

export interface ForkBegun {
  snap: string;
  rows: number;
  bytes: number;
  origin: ForkOrigin;
}

/** Where the session stood after a past step: its snapshot, its last event, its rewards. */
export interface Rewound {
  info: SnapshotInfo;
  seq: number;
  reward: number;
  total: number;
}

/**
 * A fork at a past step, and the history a branchable environment's copy
 * carries: the branching layer's (layers/branching), on `shared.branching`.
 */
export interface Branching {
  /** Refuses, before anything is read or written, what cannot be rebuilt. */
  check(
    environment: Environment,
    row: SessionRow,
    step: number,
    sql: SqlStorage
  ): void;
  /** Rebuilds `step` and snapshots it under `snap`, inside the snapshot's transaction. */
  rewind(
    shared: SessionShared,
    environment: Environment,
    row: SessionRow,
    step: number,
    snap: string,
    expiresAt: number
  ): Rewound;
  /** Adds the episode's history up to `upTo` to a snapshot. */
  history(
    sql: SqlStorage,
    snap: string,
    info: SnapshotInfo,
    episode: number,
    upTo: number
  ): SnapshotInfo;
}

/** Either a fresh snapshot, or what an earlier fork with the same Idempotency-Key answered. */
export type ForkStart =
  | { replay: false; begun: ForkBegun }
  | { replay: true; response: unknown };

// ---- the source -------------------------------------------------------

/**
 * Takes the snapshot inside the mutation queue, so it holds one committed
 * step, never part of a step in flight (nor a tree run's pass: passes go
 * through the same queue).
 */
export const beginFork = (
  shared: SessionShared,
  idem: idempotency.IdempotencyKey | undefined,
  /** The session's rate limit: a fork costs a token like any mutation. */
  throttle: () => void,
  /** A past step of the current episode to copy, rather than now (layers/branching/rewind.ts). */
  step?: number
): Promise<ForkStart> =>
  shared.queue.run(async () => {
    const row = shared.requireRow();
    const now = shared.now();
    if (idem !== undefined) {
      const stored = idempotency.lookup(shared.sql, idem, now);
      if (isPending(stored)) {
        throw new RoostError(
          "unavailable",
          `A fork with Idempotency-Key "${idem.key}" is still being made; retry shortly for its answer.`,
          { retry_after_seconds: 1 }
        );
      }
      if (stored !== undefined) return { replay: true, response: stored };
    }
    // The episode's last step is the session as it stands only while
    // nothing committed after it (an edit, a direct call, a model call):
    // else it is rebuilt like any past step.
    const newest = step === row.steps ? shared.events.newest() : undefined;
    const past =
      step !== undefined &&
      !(
        newest?.type === "step" &&
        newest.step === step &&
        newest.episode === row.episode
      );
    const environment = shared.registry.get(row.environment);
    const branching = shared.branching;
    if (past && branching === undefined)
      throw new RoostError(
        "conflict",
        "Forking at a past step needs the branching layer in this worker: createRoost({ layers: [branching()] }) from roost-edge/layers/branching.",
        { step }
      );
    if (past) branching?.check(environment, row, step, shared.sql);
    // A branchable environment's copies carry the episode's history, so
    // they can be forked at a past step in turn.
    const live = (sql: SqlStorage, s: string, episode: number, at: number) => {
      // The copy gets the state and transcript tables, not the log: what
      // was folded since they were written goes into them first
      // (state-folds.ts).
      writeFolded(sql, foldsOf(row), episode);
      const info = takeSnapshot(sql, s, episode, at);
      return environment.branchable === true && branching !== undefined
        ? branching.history(sql, s, info, episode, shared.events.lastSeq)
        : info;
    };
    throttle();
    const snap = crypto.randomUUID();
    const { info, seq, reward, total } = shared.storage.transactionSync(() => {
      const expires = now + SNAPSHOT_TTL_MS;
      const taken =
        past && branching !== undefined
          ? branching.rewind(shared, environment, row, step, snap, expires)
          : {
              info: live(shared.sql, snap, row.episode, expires),
              seq: shared.events.lastSeq,
              reward: row.reward,
              total: row.total
            };
      shared.schedule.setIfAbsent("fork", expires);
      // A retry with the key while this fork runs must not start another.
      if (idem !== undefined)
        idempotency.record(shared.sql, idem, PENDING, now, SNAPSHOT_TTL_MS);
      return taken;
    });
    await shared.schedule.arm();
    shared.seen(row);
    return {
      replay: false,
      begun: {
        snap,
        rows: info.rows,
        bytes: info.bytes,
        origin: {
          source: row.sessionId,
          seq,
          environment: row.environment,
          task: row.task,
          ...(row.initialState === undefined
            ? {}
            : { initialState: row.initialState }),
          episode: row.episode,
          episodeTask: row.episodeTask,
          ...(row.episodeTools === undefined
            ? {}
            : { episodeTools: row.episodeTools }),
          // A past step did not end the episode: the step after it came.
          steps: past ? step : row.steps,
          reward,
          total,
          done: past ? false : row.done,
          truncated: past ? false : row.truncated,
          taskRef: row.taskRef ?? null,
          episodeRef: row.episodeRef ?? null,
          tables: info.tables
        }
      }
    };
  });

/** Stored under a fork's key while it runs. */
const PENDING = { __roost_fork_pending__: true };
const isPending = (stored: unknown): boolean =>
  typeof stored === "object" &&
  stored !== null &&
  Object.hasOwn(stored, "__roost_fork_pending__");

/** A read: it bypasses the queue, and the source's steps go on meanwhile. */
export const forkChunk = (
  shared: SessionShared,
  snap: string,
  cursor: ForkCursor,
  maxBytes = CHUNK_BYTES
): ForkChunk => {
  shared.requireRow();
  const tables = snapshotSize(shared.sql, snap);
  if (tables === undefined) {
    throw new RoostError(
      "conflict",
      "The fork's snapshot is gone (it expired or the fork ended); fork again."
    );
  }
  // A session that never made a table to copy (one never reset) has none.
  if (cursor.table >= tables) return { parts: [], next: cursor, done: true };
  // A fork still reading keeps its snapshot however large it is.
  touchSnapshot(shared.sql, snap, shared.now() + SNAPSHOT_TTL_MS);
  const read = readSnapshot(
    shared.sql,
    snap,
    cursor.table,
    cursor.after,
    Math.min(maxBytes, CHUNK_BYTES),
    CHUNK_ROWS
  );
  const parts =
    read.rows.length > 0 ? [{ table: cursor.table, rows: read.rows }] : [];
  // Each chunk reads from one table; a finished table moves the cursor on.
  if (!read.exhausted)
    return {
      parts,
      next: { table: cursor.table, after: read.next },
      done: false
    };
  return {
    parts,
    next: { table: cursor.table + 1, after: 0 },
    done: cursor.table + 1 >= tables
  };
};

/**
 * Ends a fork: a complete one keeps its answer for a retry with its key (a
 * failed one forgets the key, so a retry forks anew), then the snapshot is
 * dropped — or, if that fails now, left to the alarm.
 */
export const endFork = async (
  shared: SessionShared,
  snap: string,
  response: unknown,
  idem: idempotency.IdempotencyKey | undefined
): Promise<void> => {
  if (shared.loadRow() === undefined) return;
  const now = shared.now();
  if (idem !== undefined) {
    shared.storage.transactionSync(() => {
      if (response === undefined) idempotency.forget(shared.sql, idem);
      else {
        idempotency.record(shared.sql, idem, response, now);
        shared.schedule.setIfAbsent(
          "idempotency",
          now + idempotency.IDEMPOTENCY_TTL_MS
        );
      }
    });
  }
  try {
    shared.storage.transactionSync(() => dropSnapshot(shared.sql, snap));
  } catch (error) {
    console.error("fork: dropping a snapshot failed; the alarm will", error);
    touchSnapshot(shared.sql, snap, now);
    shared.schedule.set("fork", now);
  }
  await shared.schedule.arm();
};

/** The alarm's part: snapshots whose fork never ended. */
export const expireSnapshots = (shared: SessionShared, now: number): void => {
  const next = dropExpiredSnapshots(shared.sql, now);
  if (next === undefined) shared.schedule.clear("fork");
  else shared.schedule.set("fork", next);
};
