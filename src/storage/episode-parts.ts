/** @module A session's parts for one episode: direct SQLite views for reads, overlays for a mutation. */

import type { SessionParts } from "../environment/episode";
import type { Emit } from "../protocol";
import type { StateDefinition } from "../state/define-state";
import {
  OverlayStateBackend,
  OverlayTranscriptBackend
} from "../state/overlay-backend";
import { State } from "../state/state";
import { createEnvironmentStore } from "../store/environment-store";
import { OverlayHiddenStore } from "../store/hidden-overlay";
import { OverlayStoreBackend } from "../store/overlay-backend";
import type { SqlExec } from "../tools/types";
import { SqliteHiddenStore } from "./hidden-store";
import {
  meterHidden,
  meterState,
  meterStore,
  meterTranscript,
  StepMeter
} from "./meter";
import { observeState, observeStore, observeTranscript } from "./observe";
import { SqliteStateBackend, SqliteTranscriptBackend } from "./state-backend";
import { SqliteStoreBackend } from "./store-backend";

export interface StorageOptions {
  maxStateValueBytes: number;
  llmViewBytes: number;
  maxObjectsPerResult: number;
  /** Per mutation: bytes it may stage. */
  maxStagedBytes: number;
  /** Per episode: entries its environment store may hold. */
  maxEntries: number;
}

/** A mutation's view: reads see its own writes; nothing reaches SQLite before `flush`. */
export interface Staged {
  parts: SessionParts;
  /** Set once a write crossed a limit: the mutation must not commit. */
  meter: StepMeter;
  /** Applies every staged write. Synchronous: the caller wraps it in transactionSync. */
  flush(): void;
  discard(): void;
}

const sqlExec = (sql: SqlStorage): SqlExec => ({
  exec: (query, ...params) =>
    sql.exec(query, ...(params as SqlStorageValue[])).toArray() as never
});

/** Committed data of one episode, read straight from SQLite (reads bypass the queue). */
export const committedParts = (
  sql: SqlStorage,
  episode: number,
  definition: StateDefinition<never>,
  options: StorageOptions
): SessionParts => ({
  environment: createEnvironmentStore(new SqliteStoreBackend(sql, episode), {
    llmViewBytes: options.llmViewBytes,
    maxObjectsPerResult: options.maxObjectsPerResult
  }),
  hidden: new SqliteHiddenStore(sql, episode),
  state: new State(
    definition,
    new SqliteStateBackend(sql, episode),
    new SqliteTranscriptBackend(sql, episode),
    { maxValueBytes: options.maxStateValueBytes }
  ),
  sql: sqlExec(sql)
});

export const stagedParts = (
  sql: SqlStorage,
  episode: number,
  definition: StateDefinition<never>,
  options: StorageOptions,
  hooks: {
    onCounter: (tool: string, name: string, value: number) => void;
    emit: Emit;
  }
): Staged => {
  const { onCounter, emit } = hooks;
  const store = new OverlayStoreBackend(new SqliteStoreBackend(sql, episode), {
    onCounter
  });
  const hidden = new OverlayHiddenStore(new SqliteHiddenStore(sql, episode));
  const state = new OverlayStateBackend(new SqliteStateBackend(sql, episode));
  const transcript = new OverlayTranscriptBackend(
    new SqliteTranscriptBackend(sql, episode)
  );
  const all = [store, hidden, state, transcript];
  const meter = new StepMeter({
    stagedBytes: options.maxStagedBytes,
    entries: options.maxEntries
  });
  return {
    meter,
    parts: {
      environment: createEnvironmentStore(
        observeStore(meterStore(store, meter), emit),
        {
          llmViewBytes: options.llmViewBytes,
          maxObjectsPerResult: options.maxObjectsPerResult
        }
      ),
      hidden: meterHidden(hidden, meter),
      state: new State(
        definition,
        observeState(meterState(state, meter), emit),
        observeTranscript(meterTranscript(transcript, meter), emit),
        {
          maxValueBytes: options.maxStateValueBytes
        }
      ),
      sql: sqlExec(sql)
    },
    flush: () => {
      for (const o of all) o.flush();
    },
    discard: () => {
      for (const o of all) o.discard();
    }
  };
};
