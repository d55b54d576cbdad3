/** @module A session's parts for one episode: direct SQLite views for reads, overlays for a mutation. */

import type { SessionParts } from "../environment/hook-calls";
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
import type { CommittedCache } from "./committed-cache";
import { SqliteHiddenStore } from "./hidden-store";
import { StepMeter } from "./meter";
import { SqliteStateBackend, SqliteTranscriptBackend } from "./state-backend";
import type { FoldedMessages, StateFolds } from "./state-folds";
import { SqliteStoreBackend } from "./store-backend";
import { watches } from "./write-watch";

export interface StorageOptions {
  maxStateValueBytes: number;
  llmViewBytes: number;
  maxObjectsPerResult: number;
  /** Per mutation: bytes it may stage. */
  maxStagedBytes: number;
  /** Per episode: entries its environment store may hold. */
  maxEntries: number;
  /**
   * What the session object knows of its committed transcript count and
   * state values (committed-cache.ts), so a step does not read them again.
   */
  cache?: CommittedCache;
  /** What is folded into the log since the state and transcript tables were written (state-folds.ts). */
  folds?: StateFolds;
}

/** A mutation's view: reads see its own writes; nothing reaches SQLite before `flush`. */
export interface Staged {
  parts: SessionParts;
  /** Set once a write crossed a limit: the mutation must not commit. */
  meter: StepMeter;
  /**
   * Applies every staged write. Synchronous: the caller wraps it in
   * transactionSync. State values and messages are held for the commit:
   * it folds them into its log row (`stateChanges`, `messageChanges`) or
   * writes them.
   */
  flush(): void;
  /** The state values `flush` held, key → JSON text, in the order first set. */
  stateChanges(): ReadonlyMap<string, string>;
  /** The messages `flush` held, if any. */
  messageChanges(): FoldedMessages | undefined;
  /** Writes the held messages, after the folded ones the transcript table lacks. */
  writeMessages(): void;
  discard(): void;
  /** The hidden store's pending changes, in the order `flush` applies them. */
  hiddenChanges(): ReturnType<OverlayHiddenStore["changes"]>;
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
    new SqliteStateBackend(sql, episode, options.cache, {
      folds: options.folds
    }),
    new SqliteTranscriptBackend(sql, episode, options.cache, {
      folds: options.folds
    }),
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
  const meter = new StepMeter({
    stagedBytes: options.maxStagedBytes,
    entries: options.maxEntries
  });
  const watch = watches(meter, emit);
  const store = new OverlayStoreBackend(new SqliteStoreBackend(sql, episode), {
    onCounter,
    watch: watch.store
  });
  const hidden = new OverlayHiddenStore(
    new SqliteHiddenStore(sql, episode),
    watch.hidden
  );
  const held = new SqliteStateBackend(sql, episode, options.cache, {
    folds: options.folds,
    hold: true
  });
  const state = new OverlayStateBackend(held, watch.state);
  const messages = new SqliteTranscriptBackend(sql, episode, options.cache, {
    folds: options.folds,
    hold: true
  });
  const transcript = new OverlayTranscriptBackend(messages, watch.transcript);
  const all = [store, hidden, state, transcript];
  return {
    meter,
    parts: {
      environment: createEnvironmentStore(store, {
        llmViewBytes: options.llmViewBytes,
        maxObjectsPerResult: options.maxObjectsPerResult
      }),
      hidden,
      state: new State(definition, state, transcript, {
        maxValueBytes: options.maxStateValueBytes
      }),
      sql: sqlExec(sql)
    },
    flush: () => {
      for (const o of all) o.flush();
    },
    stateChanges: () => held.held,
    messageChanges: () => messages.held,
    writeMessages: () => messages.writeFolded(),
    discard: () => {
      for (const o of all) o.discard();
    },
    hiddenChanges: () => hidden.changes()
  };
};
