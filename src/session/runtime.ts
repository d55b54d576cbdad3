/**
 * @module A session's running parts, assembled once per object: storage and
 * its caches (shared.ts), the commit path, tree runs, the event listeners, waking
 * (recover) and the alarm. The session's logic is the operations'
 * (operations/), which run against it.
 */

import type { Environment } from "../environment/define-environment";
import type { SessionParts } from "../environment/hook-calls";
import type { Registry } from "../environment/registry";
import { type Limits, LimitsSchema } from "../protocol/limits";
import type { Scope } from "../protocol/scopes";
import type { StateDefinition } from "../state/define-state";
import { committedParts } from "../storage/episode-parts";
import type { EventLog, EventText } from "../storage/event-log";
import { migrate, SCHEMA_VERSION, schemaVersion } from "../storage/schema";
import { readSessionRow, type SessionRow } from "../storage/session-row";
import { SqliteTranscriptBackend } from "../storage/state-backend";
import { foldsOf } from "../storage/state-folds";
import { runAlarm } from "./alarm";
import { Committer } from "./commit";
import { mergeLayers, type SessionLayers } from "./layer";
import { createModelResolver, type ModelResolver } from "./models";
import type { ResolvedOptions } from "./options";
import { SessionShared } from "./shared";
import { TreeRuns } from "./tree-runs";

export class SessionRuntime {
  /** Storage, options and the event log, shared by everything below. */
  readonly shared: SessionShared;
  readonly commits: Committer;
  readonly runs: TreeRuns;
  /** The class's layers, merged once for all its objects (layer.ts). */
  readonly layers: SessionLayers;
  /** The deployment's models: tree runs decide with them, judges grade with them. */
  readonly models: ModelResolver;
  /** The socket layer's listener (one), then any number of chat streams'. */
  #onEvent: (event: EventText) => void = () => {};
  readonly #listeners = new Set<(event: EventText) => void>();

  constructor(
    storage: DurableObjectStorage,
    registry: Registry,
    options: ResolvedOptions,
    models: ModelResolver = createModelResolver({}),
    layers: SessionLayers = mergeLayers()
  ) {
    this.shared = new SessionShared(storage, registry, options);
    this.shared.operations = layers.operations;
    this.layers = layers;
    this.models = models;
    this.commits = new Committer(this.shared);
    this.runs = new TreeRuns(this.shared, this.commits, models);
    this.shared.onEvent = (event) => {
      this.#onEvent(event);
      for (const listener of this.#listeners) listener(event);
    };
    if (options.rateLimit) this.setRateLimit(options.limits.mutationsPerSecond);
  }

  /** Injectable clock: tests move time instead of waiting. */
  get now(): () => number {
    return this.shared.now;
  }
  set now(clock: () => number) {
    this.shared.now = clock;
  }

  /** Called with every event after it is written (the socket layer listens). */
  set onEvent(listener: (event: EventText) => void) {
    this.#onEvent = listener;
  }

  /** Adds a listener of every event after it is written; returns its removal. */
  subscribe(listener: (event: EventText) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called once the session was deleted (the socket layer closes its sockets). */
  onGone: () => void = () => {};

  /** Called once a scope's tokens signed before `before` were revoked (the socket layer closes theirs). */
  onRevoked: (scope: Scope, before: number) => void = () => {};

  /** Sets (or, with `undefined`, removes) the per-session rate of mutating calls. */
  setRateLimit(perSecond: number | undefined): void {
    this.commits.setRateLimit(perSecond);
  }

  /** Overrides some limits in this object only, until it restarts (tests tighten them). */
  setLimits(limits: Partial<Limits>): void {
    const shared = this.shared;
    const merged = LimitsSchema().parse({
      ...shared.options.limits,
      ...limits
    });
    shared.options = { ...shared.options, limits: merged };
  }

  /**
   * Runs once when the object wakes: brings older storage to this code's
   * schema, and marks aborted the events a mutation in flight when the
   * object died left behind. Nothing else needs repair, because nothing
   * else was written before its commit.
   */
  recover(): void {
    const shared = this.shared;
    const version = schemaVersion(shared.sql);
    if (version === undefined) return;
    // A session older code created gets the tables this code added.
    if (version !== SCHEMA_VERSION)
      shared.storage.transactionSync(() => migrate(shared.sql));
    const row = readSessionRow(shared.sql);
    if (row?.inflight == null) return;
    shared.storage.transactionSync(() =>
      this.commits.abandon(row.inflight!, row.episode)
    );
  }

  /** Runs `fn` over what was committed (reads bypass the queue). */
  read<T>(
    fn: (parts: SessionParts, environment: Environment, row: SessionRow) => T
  ): T {
    const shared = this.shared;
    const row = shared.requireRow();
    shared.seen(row);
    const environment = shared.registry.get(row.environment);
    const parts = committedParts(
      shared.sql,
      row.episode,
      environment.state as StateDefinition<never>,
      shared.storageOptions
    );
    return fn(parts, environment, row);
  }

  /** Whether this object holds a session (a probe creates nothing). */
  exists(): boolean {
    return this.shared.loadRow() !== undefined;
  }

  /** The event log, for replays. */
  get events(): EventLog {
    return this.shared.events;
  }

  /** The committed transcript, read a page at a time. */
  readTranscript<T>(fn: (transcript: SqliteTranscriptBackend) => T): T {
    const shared = this.shared;
    const row = shared.requireRow();
    shared.seen(row);
    return fn(
      new SqliteTranscriptBackend(shared.sql, row.episode, undefined, {
        folds: foldsOf(row)
      })
    );
  }

  alarm(openSockets: number): Promise<void> {
    return runAlarm(this, this.layers.alarms, openSockets);
  }
}
