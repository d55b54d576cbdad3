/**
 * @module Forking, as each side of it sees it. The source snapshots its
 * current episode between two mutations and serves the snapshot in chunks
 * while it goes on serving steps; a copy takes the chunks under an import
 * marker and holds no session (404 everywhere) until its last one commits.
 * Whoever drives the fork (http/fork-driver.ts) moves the chunks between them.
 */

import * as z from "zod";
import { RoostError } from "../errors";
import { lazy } from "../lazy";
import { markAwaitingUse } from "../storage/first-use";
import {
  dropExpiredSnapshots,
  dropSnapshot,
  insertRows,
  readSnapshot,
  snapshotSize,
  takeSnapshot,
  touchSnapshot
} from "../storage/fork-copy";
import * as idempotency from "../storage/idempotency";
import {
  recordImportVersion,
  SCHEMA_VERSION,
  schemaVersion
} from "../storage/schema";
import { insertSessionRow, readSessionRow } from "../storage/session-row";
import type { SessionCore } from "./core";

/** A snapshot no driver came back for (its worker died) is dropped after this. */
export const SNAPSHOT_TTL_MS = 10 * 60 * 1000;
/** A copy that received nothing for this long was abandoned mid-way and is deleted. */
export const IMPORT_IDLE_MS = 5 * 60 * 1000;
/** A chunk's size: far below RPC's message limit, large enough to take few round trips. */
export const CHUNK_BYTES = 4 * 1024 * 1024;
export const CHUNK_ROWS = 20_000;

/** Where the source stood when it was copied: the copy's session row, but its id. */
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

/** Either a fresh snapshot, or what an earlier fork with the same Idempotency-Key answered. */
export type ForkStart =
  | { replay: false; begun: ForkBegun }
  | { replay: true; response: unknown };

const IMPORT_KEY = "import";

// ---- the source -------------------------------------------------------

/**
 * Takes the snapshot inside the mutation queue, so it holds one committed
 * step, never part of a step in flight (nor a tree run's pass: passes go
 * through the same queue).
 */
export const beginFork = (
  core: SessionCore,
  idem: idempotency.IdempotencyKey | undefined,
  /** The session's rate limit: a fork costs a token like any mutation. */
  throttle: () => void
): Promise<ForkStart> =>
  core.queue.run(async () => {
    const row = core.requireRow();
    const now = core.now();
    if (idem !== undefined) {
      const stored = idempotency.lookup(core.sql, idem, now);
      if (isPending(stored)) {
        throw new RoostError(
          "unavailable",
          `A fork with Idempotency-Key "${idem.key}" is still being made; retry shortly for its answer.`,
          { retry_after_seconds: 1 }
        );
      }
      if (stored !== undefined) return { replay: true, response: stored };
    }
    throttle();
    const snap = crypto.randomUUID();
    const { info, seq } = core.storage.transactionSync(() => {
      const expires = now + SNAPSHOT_TTL_MS;
      const taken = takeSnapshot(core.sql, snap, row.episode, expires);
      core.schedule.setIfAbsent("fork", expires);
      // A retry with the key while this fork runs must not start another.
      if (idem !== undefined)
        idempotency.record(core.sql, idem, PENDING, now, SNAPSHOT_TTL_MS);
      return { info: taken, seq: core.events.lastSeq };
    });
    await core.schedule.arm();
    core.seen(row);
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
          steps: row.steps,
          reward: row.reward,
          total: row.total,
          done: row.done,
          truncated: row.truncated,
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
  core: SessionCore,
  snap: string,
  cursor: ForkCursor,
  maxBytes = CHUNK_BYTES
): ForkChunk => {
  core.requireRow();
  const tables = snapshotSize(core.sql, snap);
  if (tables === undefined) {
    throw new RoostError(
      "conflict",
      "The fork's snapshot is gone (it expired or the fork ended); fork again."
    );
  }
  // A session that never made a table to copy (one never reset) has none.
  if (cursor.table >= tables) return { parts: [], next: cursor, done: true };
  // A fork still reading keeps its snapshot however large it is.
  touchSnapshot(core.sql, snap, core.now() + SNAPSHOT_TTL_MS);
  const read = readSnapshot(
    core.sql,
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
  core: SessionCore,
  snap: string,
  response: unknown,
  idem: idempotency.IdempotencyKey | undefined
): Promise<void> => {
  if (core.loadRow() === undefined) return;
  const now = core.now();
  if (idem !== undefined) {
    core.storage.transactionSync(() => {
      if (response === undefined) idempotency.forget(core.sql, idem);
      else {
        idempotency.record(core.sql, idem, response, now);
        core.schedule.setIfAbsent(
          "idempotency",
          now + idempotency.IDEMPOTENCY_TTL_MS
        );
      }
    });
  }
  try {
    core.storage.transactionSync(() => dropSnapshot(core.sql, snap));
  } catch (error) {
    console.error("fork: dropping a snapshot failed; the alarm will", error);
    touchSnapshot(core.sql, snap, now);
    core.schedule.set("fork", now);
  }
  await core.schedule.arm();
};

/** The alarm's part: snapshots whose fork never ended. */
export const expireSnapshots = (core: SessionCore, now: number): void => {
  const next = dropExpiredSnapshots(core.sql, now);
  if (next === undefined) core.schedule.clear("fork");
  else core.schedule.set("fork", next);
};

// ---- the copy ---------------------------------------------------------

interface ImportMarker {
  sessionId: string;
  origin: ForkOrigin;
}

const readMarker = (sql: SqlStorage): ImportMarker | undefined => {
  const [row] = sql
    .exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", IMPORT_KEY)
    .toArray();
  return row && (JSON.parse(row.value) as ImportMarker);
};

const requireMarker = (core: SessionCore): ImportMarker => {
  const marker =
    schemaVersion(core.sql) === undefined ? undefined : readMarker(core.sql);
  if (marker === undefined) {
    throw new RoostError(
      "not_found",
      "This copy is not being imported (it was abandoned and deleted, or it is complete)."
    );
  }
  return marker;
};

/** Starts a copy: the tables and the marker, but no session row yet (so every route answers 404). */
export const beginImport = async (
  core: SessionCore,
  sessionId: string,
  origin: ForkOrigin
): Promise<void> => {
  if (schemaVersion(core.sql) !== undefined) {
    throw new RoostError("conflict", "This object already holds data.");
  }
  core.storage.transactionSync(() => {
    recordImportVersion(core.sql);
    core.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?)",
      IMPORT_KEY,
      JSON.stringify({ sessionId, origin } satisfies ImportMarker)
    );
    for (const table of origin.tables)
      if (table.create !== undefined) core.sql.exec(table.create);
    core.schedule.set("import", core.now() + IMPORT_IDLE_MS);
  });
  await core.schedule.arm();
};

export const importChunk = async (
  core: SessionCore,
  parts: ChunkPart[]
): Promise<void> => {
  const { origin } = requireMarker(core);
  core.storage.transactionSync(() => {
    for (const part of parts)
      insertRows(core.sql, origin.tables[part.table]!, part.rows);
    core.schedule.set("import", core.now() + IMPORT_IDLE_MS);
  });
  await core.schedule.arm();
};

/**
 * The last step of a copy: its session row, its first event and its TTL
 * commit together, so the session appears whole or not at all.
 */
export const endImport = async (core: SessionCore): Promise<void> => {
  const { sessionId, origin } = requireMarker(core);
  const now = core.now();
  core.storage.transactionSync(() => {
    for (const table of origin.tables)
      for (const statement of table.later ?? []) core.sql.exec(statement);
    insertSessionRow(
      core.sql,
      {
        sessionId,
        environment: origin.environment,
        task: origin.task,
        ...(origin.initialState === undefined
          ? {}
          : { initialState: origin.initialState }),
        episode: origin.episode,
        episodeTask: origin.episodeTask,
        ...(origin.episodeTools === undefined
          ? {}
          : { episodeTools: origin.episodeTools }),
        steps: origin.steps,
        reward: origin.reward,
        total: origin.total,
        done: origin.done,
        truncated: origin.truncated,
        createdAt: now,
        lastUsedAt: now,
        inflight: null
      },
      // On probation until first used, like an MCP-made session: a copy
      // whose id never reached anyone (the fork failed after it) goes in minutes.
      now + core.options.unusedTtlMs,
      SCHEMA_VERSION
    );
    core.sql.exec("DELETE FROM meta WHERE key = ?", IMPORT_KEY);
    core.schedule.clear("import");
    markAwaitingUse(core.sql);
    core.emit(origin.episode, "forked", {
      source: origin.source,
      source_seq: origin.seq
    });
  });
  core.committed(readSessionRow(core.sql)!);
  core.awaitingUse();
  await core.schedule.arm();
};

/** Deletes a copy whose fork failed, made or half-made: a fork makes all its copies or none. */
export const abortImport = async (core: SessionCore): Promise<void> => {
  await core.storage.deleteAll();
  core.forget();
};

/** The alarm of an object with no session row: a copy nobody finished is deleted. */
export const expireImport = async (
  core: SessionCore,
  now: number
): Promise<void> => {
  if (schemaVersion(core.sql) === undefined) return;
  if (readMarker(core.sql) === undefined) return;
  const due = core.schedule.dueAt("import");
  if (due === undefined || due <= now) {
    await abortImport(core);
    return;
  }
  await core.schedule.arm();
};
