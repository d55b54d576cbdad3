/**
 * @module A session's running parts, assembled once per object: storage and
 * its caches (core), the commit path, tree runs, the event listeners, waking
 * (recover) and the alarm. The session's logic is the operations'
 * (operations/), which run against it.
 */

import type { Environment } from "../environment/define-environment";
import type { SessionParts } from "../environment/hook-calls";
import type { Registry } from "../environment/registry";
import { type Limits, LimitsSchema } from "../protocol/limits";
import type { StateDefinition } from "../state/define-state";
import { committedParts } from "../storage/episode-parts";
import type { EventLog, EventText } from "../storage/event-log";
import { migrate, SCHEMA_VERSION, schemaVersion } from "../storage/schema";
import { readSessionRow, type SessionRow } from "../storage/session-row";
import { SqliteTranscriptBackend } from "../storage/state-backend";
import { runAlarm } from "./alarm";
import { Committer } from "./commit";
import { SessionCore } from "./core";
import { createModelResolver, type ModelResolver } from "./models";
import type { ResolvedOptions } from "./options";
import { TreeRuns } from "./tree-runs";

export class SessionRuntime {
  /** Storage, options and the event log, shared by everything below. */
  readonly core: SessionCore;
  readonly commits: Committer;
  readonly runs: TreeRuns;
  /** The socket layer's listener (one), then any number of chat streams'. */
  #onEvent: (event: EventText) => void = () => {};
  readonly #listeners = new Set<(event: EventText) => void>();

  constructor(
    storage: DurableObjectStorage,
    registry: Registry,
    options: ResolvedOptions,
    models: ModelResolver = createModelResolver({})
  ) {
    this.core = new SessionCore(storage, registry, options);
    this.commits = new Committer(this.core);
    this.runs = new TreeRuns(this.core, this.commits, models);
    this.core.onEvent = (event) => {
      this.#onEvent(event);
      for (const listener of this.#listeners) listener(event);
    };
    if (options.rateLimit) this.setRateLimit(options.limits.mutationsPerSecond);
  }

  /** Injectable clock: tests move time instead of waiting. */
  get now(): () => number {
    return this.core.now;
  }
  set now(clock: () => number) {
    this.core.now = clock;
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

  /** Sets (or, with `undefined`, removes) the per-session rate of mutating calls. */
  setRateLimit(perSecond: number | undefined): void {
    this.commits.setRateLimit(perSecond);
  }

  /** Overrides some limits in this object only, until it restarts (tests tighten them). */
  setLimits(limits: Partial<Limits>): void {
    const core = this.core;
    const merged = LimitsSchema().parse({ ...core.options.limits, ...limits });
    core.options = { ...core.options, limits: merged };
  }

  /**
   * Runs once when the object wakes: brings older storage to this code's
   * schema, and marks aborted the events a mutation in flight when the
   * object died left behind. Nothing else needs repair, because nothing
   * else was written before its commit.
   */
  recover(): void {
    const core = this.core;
    const version = schemaVersion(core.sql);
    if (version === undefined) return;
    // A session older code created gets the tables this code added.
    if (version !== SCHEMA_VERSION)
      core.storage.transactionSync(() => migrate(core.sql));
    const row = readSessionRow(core.sql);
    if (row?.inflight == null) return;
    core.storage.transactionSync(() =>
      this.commits.abandon(row.inflight!, row.episode)
    );
  }

  /** Runs `fn` over what was committed (reads bypass the queue). */
  read<T>(
    fn: (parts: SessionParts, env: Environment, row: SessionRow) => T
  ): T {
    const core = this.core;
    const row = core.requireRow();
    core.seen(row);
    const env = core.registry.get(row.environment);
    const parts = committedParts(
      core.sql,
      row.episode,
      env.state as StateDefinition<never>,
      core.storageOptions
    );
    return fn(parts, env, row);
  }

  /** Whether this object holds a session (a probe creates nothing). */
  exists(): boolean {
    return this.core.loadRow() !== undefined;
  }

  /** The event log, for replays. */
  get events(): EventLog {
    return this.core.events;
  }

  /** The committed transcript, read a page at a time. */
  readTranscript<T>(fn: (transcript: SqliteTranscriptBackend) => T): T {
    const core = this.core;
    const row = core.requireRow();
    core.seen(row);
    return fn(new SqliteTranscriptBackend(core.sql, row.episode));
  }

  alarm(openSockets: number): Promise<void> {
    return runAlarm(this.core, this.runs, openSockets);
  }
}
