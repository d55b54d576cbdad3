/**
 * @module Forking, as a copy sees it: it takes the source's chunks under an
 * import marker and holds no session (404 everywhere) until its last one
 * commits; a copy abandoned mid-way is deleted by its alarm.
 */

import { RoostError } from "../errors";
import { markAwaitingUse } from "../storage/first-use";
import { insertRows } from "../storage/fork-copy";
import {
  recordImportVersion,
  SCHEMA_VERSION,
  schemaVersion
} from "../storage/schema";
import { insertSessionRow, readSessionRow } from "../storage/session-row";
import type { ChunkPart, ForkOrigin } from "./fork-source";
import type { SessionShared } from "./shared";

const IMPORT_KEY = "import";
/** A copy that received nothing for this long was abandoned mid-way and is deleted. */
export const IMPORT_IDLE_MS = 5 * 60 * 1000;

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

const requireMarker = (shared: SessionShared): ImportMarker => {
  const marker =
    schemaVersion(shared.sql) === undefined
      ? undefined
      : readMarker(shared.sql);
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
  shared: SessionShared,
  sessionId: string,
  origin: ForkOrigin
): Promise<void> => {
  if (schemaVersion(shared.sql) !== undefined) {
    throw new RoostError("conflict", "This object already holds data.");
  }
  shared.storage.transactionSync(() => {
    recordImportVersion(shared.sql);
    shared.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?)",
      IMPORT_KEY,
      JSON.stringify({ sessionId, origin } satisfies ImportMarker)
    );
    for (const table of origin.tables)
      if (table.create !== undefined) shared.sql.exec(table.create);
    shared.schedule.set("import", shared.now() + IMPORT_IDLE_MS);
  });
  await shared.schedule.arm();
};

export const importChunk = async (
  shared: SessionShared,
  parts: ChunkPart[]
): Promise<void> => {
  const { origin } = requireMarker(shared);
  shared.storage.transactionSync(() => {
    for (const part of parts)
      insertRows(shared.sql, origin.tables[part.table]!, part.rows);
    shared.schedule.set("import", shared.now() + IMPORT_IDLE_MS);
  });
  await shared.schedule.arm();
};

/**
 * The last step of a copy: its session row, its first event and its TTL
 * commit together, so the session appears whole or not at all.
 */
export const endImport = async (shared: SessionShared): Promise<void> => {
  const { sessionId, origin } = requireMarker(shared);
  const now = shared.now();
  shared.storage.transactionSync(() => {
    for (const table of origin.tables)
      for (const statement of table.later ?? []) shared.sql.exec(statement);
    // Its log may hold the source's history (a branchable environment's
    // copy), so the seq is read again, and the row is as of that history's
    // end: the folds there are the source's, no newer than what the row
    // and the copied tables hold, and are never read over them.
    shared.events.reset();
    insertSessionRow(
      shared.sql,
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
        taskRef: origin.taskRef ?? null,
        episodeRef: origin.episodeRef ?? null,
        createdAt: now,
        lastUsedAt: now,
        inflight: null,
        asOf: shared.events.lastSeq
      },
      // On probation until first used, like an MCP-made session: a copy
      // whose id never reached anyone (the fork failed after it) goes in minutes.
      now + shared.options.unusedTtlMs,
      SCHEMA_VERSION
    );
    shared.sql.exec("DELETE FROM meta WHERE key = ?", IMPORT_KEY);
    shared.schedule.clear("import");
    markAwaitingUse(shared.sql);
    // `forked` comes after that history.
    shared.emit(origin.episode, "forked", {
      source: origin.source,
      source_seq: origin.seq
    });
  });
  shared.committed(readSessionRow(shared.sql)!);
  shared.awaitingUse();
  await shared.schedule.arm();
};

/** Deletes a copy whose fork failed, made or half-made: a fork makes all its copies or none. */
export const abortImport = async (shared: SessionShared): Promise<void> => {
  await shared.storage.deleteAll();
  shared.forget();
};

/** The alarm of an object with no session row: a copy nobody finished is deleted. */
export const expireImport = async (
  shared: SessionShared,
  now: number
): Promise<void> => {
  if (schemaVersion(shared.sql) === undefined) return;
  if (readMarker(shared.sql) === undefined) return;
  const due = shared.schedule.dueAt("import");
  if (due === undefined || due <= now) {
    await abortImport(shared);
    return;
  }
  await shared.schedule.arm();
};
