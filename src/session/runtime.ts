/** @module A session's logic: lifecycle, the episode's mutations and reads — over the commit protocol, tree runs and the alarm. */

import type { Environment } from "../environment/define-environment";
import type { SessionParts } from "../environment/episode";
import type { Registry } from "../environment/registry";
import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import type { SessionStatus } from "../protocol";
import { type Limits, LimitsSchema } from "../protocol/limits";
import {
  READ_BYTES,
  ReadBudget,
  truncatedField
} from "../protocol/read-budget";
import type { StateDefinition } from "../state/define-state";
import { committedParts } from "../storage/episode-parts";
import type { EventLog, EventText, StoredEvent } from "../storage/event-log";
import { markAwaitingUse } from "../storage/first-use";
import { migrate, SCHEMA_VERSION, schemaVersion } from "../storage/schema";
import {
  insertSessionRow,
  readSessionRow,
  type SessionRow,
  touchSession
} from "../storage/session-row";
import { SqliteTranscriptBackend } from "../storage/state-backend";
import type { KeyInfo } from "../store/types";
import { runAlarm } from "./alarm";
import { closeSession } from "./close";
import { Committer } from "./commit";
import { SessionCore } from "./core";
import { createModelResolver, type ModelResolver } from "./models";
import { statePage } from "./operations/state-page";
import type { ResolvedOptions } from "./options";
import { TreeRuns } from "./tree-runs";

export class SessionRuntime {
  /** Shared by the operations (operations/), which are the session's logic. */
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

  // ---- lifecycle -------------------------------------------------------

  async create(init: {
    sessionId: string;
    environment: string;
    task: unknown;
    state?: Record<string, unknown>;
  }): Promise<SessionStatus> {
    const core = this.core;
    if (schemaVersion(core.sql) !== undefined) {
      throw new RoostError("conflict", "This session already exists.");
    }
    core.registry.get(init.environment);
    const now = core.now();
    // One statement (and the table it makes on first use, tables.ts):
    // the row, its idle timer and its schema version.
    core.storage.transactionSync(() =>
      insertSessionRow(
        core.sql,
        {
          sessionId: init.sessionId,
          environment: init.environment,
          task: init.task,
          ...(init.state === undefined ? {} : { initialState: init.state }),
          episode: 0,
          episodeTask: null,
          steps: 0,
          reward: 0,
          total: 0,
          done: false,
          truncated: false,
          createdAt: now,
          lastUsedAt: now,
          inflight: null
        },
        now + core.options.idleTtlMs,
        SCHEMA_VERSION
      )
    );
    await core.schedule.arm();
    return this.status();
  }

  status(): SessionStatus {
    const core = this.core;
    const row = core.requireRow();
    core.seen(row);
    const phase =
      row.episode === 0
        ? "created"
        : row.done
          ? "done"
          : row.truncated
            ? "truncated"
            : "running";
    return {
      session_id: row.sessionId,
      environment: row.environment,
      episode: row.episode,
      steps: row.steps,
      reward: row.reward,
      return: row.total,
      done: row.done,
      truncated: row.truncated,
      status: phase,
      created_at: new Date(row.createdAt).toISOString(),
      last_used_at: new Date(core.lastUsed(row)).toISOString()
    };
  }

  /**
   * Puts the session on probation: unless a later request uses it, it is
   * deleted after `unusedTtlMs` idle instead of `idleTtlMs` (first-use.ts).
   */
  async expectUse(): Promise<void> {
    const core = this.core;
    core.requireRow();
    const now = core.now();
    core.storage.transactionSync(() => {
      markAwaitingUse(core.sql);
      touchSession(core.sql, now);
      core.schedule.set("ttl", now + core.options.unusedTtlMs);
    });
    core.committed(readSessionRow(core.sql)!);
    core.awaitingUse();
    await core.schedule.arm();
  }

  /** Deletes every row and the alarm; later requests find no session (404). */
  async destroy(): Promise<void> {
    const core = this.core;
    core.requireRow();
    await core.queue.run(() => closeSession(core, "deleted"));
    this.onGone();
  }

  // ---- reads (bypass the queue: they see what was committed) -------------

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

  /**
   * What a new socket sees first: status, state and store keys with counts —
   * never entries — within one read budget; what does not fit is named by
   * cursors for the HTTP reads.
   */
  snapshot(): {
    status: SessionStatus;
    state: Record<string, JsonValue>;
    keys: KeyInfo[];
    last_seq: number;
    truncated?: true;
    state_next_cursor?: string;
    keys_next_cursor?: string;
  } {
    const status = this.status();
    return this.read((parts, env) => {
      const budget = new ReadBudget(READ_BYTES.default);
      const state = statePage(parts.state, env.state.keys(), 0, budget);
      // A page always holds its first key, so the keys' cursor is never "from the start".
      const keys = parts.environment.keyPage({
        limit: 10_000,
        maxBytes: Math.max(1, budget.left)
      });
      const stateCursor =
        state.next === undefined ? undefined : String(state.next);
      const keysCursor = keys.nextCursor;
      return {
        status,
        state: state.values,
        keys: keys.keys,
        last_seq: this.core.events.lastSeq,
        ...(stateCursor || keysCursor ? { truncated: true as const } : {}),
        ...(stateCursor ? { state_next_cursor: stateCursor } : {}),
        ...(keysCursor ? { keys_next_cursor: keysCursor } : {})
      };
    });
  }

  /**
   * The one rule for a resume point, over HTTP and on the socket: a seq
   * past the newest is a client's mistake (400); one whose next events were
   * trimmed is `gone` (410).
   */
  checkResumePoint(after: number): void {
    const log = this.core.events;
    if (after > log.lastSeq) {
      throw new RoostError(
        "invalid_request",
        `after=${after} is past this session's last seq, ${log.lastSeq}: resume from a seq you were sent.`,
        { field: "after", last_seq: log.lastSeq }
      );
    }
    const oldest = log.oldestSeq;
    if (oldest > 0 && after < oldest - 1) {
      throw new RoostError(
        "gone",
        `Events after ${after} are no longer retained; the oldest is ${oldest}. Read the session afresh (GET the snapshot routes) and continue from its last seq.`,
        { oldest_seq: oldest }
      );
    }
  }

  /**
   * The event log over HTTP: `limit` events and `maxBytes` at most after
   * `after`, or from the oldest retained when `after` is absent.
   */
  readEvents(
    from: number | undefined,
    limit: number,
    maxBytes: number = READ_BYTES.default
  ): { events: StoredEvent[]; next_after: number; truncated?: true } {
    const core = this.core;
    core.seen(core.requireRow());
    const after = from ?? Math.max(0, core.events.oldestSeq - 1);
    this.checkResumePoint(after);
    const budget = new ReadBudget(maxBytes);
    const events = core.events
      .page(after, limit, budget)
      .map((e) => JSON.parse(e.text) as StoredEvent);
    return {
      events,
      next_after: events.at(-1)?.seq ?? Math.max(after, 0),
      ...truncatedField(budget)
    };
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
