/** @module What a session's modules share: storage, registry, options, clock, event log and the committed row. */

import type { Registry } from "../environment/registry";
import { RoostError } from "../errors";
import type { EventData, EventType } from "../protocol";
import type { Scope } from "../protocol/scopes";
import { CommittedCache } from "../storage/committed-cache";
import type { StorageOptions } from "../storage/episode-parts";
import { EventLog, type EventText } from "../storage/event-log";
import { clearAwaitingUse, isAwaitingUse } from "../storage/first-use";
import {
  type Revocations,
  readRevocations,
  writeRevocations
} from "../storage/revocations";
import { schemaVersion } from "../storage/schema";
import {
  readSessionRow,
  type SessionRow,
  touchSession
} from "../storage/session-row";
import { foldsOf } from "../storage/state-folds";
import { makeTablesOnFirstUse } from "../storage/tables";
import type { ExecuteOptions } from "../tools/execute";
import type { ExecutionHooks, IsolateStarter } from "../tools/types";
import type { Branching } from "./fork-source";
import type { OperationTable } from "./layer";
import { CORE_OPERATIONS } from "./operations";
import type { ResolvedOptions } from "./options";
import { MutationQueue } from "./queue";
import { Schedule } from "./schedule";
import { splitResult } from "./split-result";

export class SessionShared {
  /** Injectable clock: tests move time instead of waiting. */
  now: () => number = Date.now;
  /** Called with every event once it is durable (the socket layer listens). */
  onEvent: (event: EventText) => void = () => {};

  readonly storage: DurableObjectStorage;
  readonly sql: SqlStorage;
  readonly registry: Registry;
  options: ResolvedOptions;
  /**
   * Whether the worker runs in development (ROOST_DEV=1): tool exceptions'
   * stacks then ride on `tool.finished` events (tool-events.ts).
   */
  dev = false;
  /**
   * Under `roost-edge dev`, what turns a stack's bundle lines into the
   * author's files (set by the dev server's worker, cli/dev-worker.ts);
   * undefined elsewhere.
   */
  mapStack: ((stack: string) => Promise<string>) | undefined;
  /** The worker's Worker Loader, as code tools use it (isolates.ts); undefined without one. */
  isolates: IsolateStarter | undefined;
  /** Forks at a past step: set by the branching layer, absent without it. */
  branching: Branching | undefined;
  /** The operations this session runs: the core's and its worker's layers' (operations/index.ts). */
  operations: OperationTable = CORE_OPERATIONS;
  readonly queue = new MutationQueue();
  readonly events: EventLog;
  readonly schedule: Schedule;
  #row: SessionRow | undefined;
  #revocations: Revocations | undefined;
  #lastSeen = 0;
  /** Whether the session awaits its first real use (first-use.ts); undefined until read. */
  #awaitingUse: boolean | undefined;
  /** While a mutation runs: writes its in-flight mark (commit.ts). */
  #mark: (() => void) | undefined;
  #publishTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    storage: DurableObjectStorage,
    registry: Registry,
    options: ResolvedOptions
  ) {
    this.storage = storage;
    this.sql = storage.sql;
    makeTablesOnFirstUse(this.sql);
    this.registry = registry;
    this.options = options;
    this.events = new EventLog(this.sql);
    this.schedule = new Schedule(storage);
  }

  /** What is known of the committed transcript and state, kept across mutations (committed-cache.ts). */
  readonly cache = new CommittedCache();

  get storageOptions(): StorageOptions {
    const l = this.options.limits;
    return {
      cache: this.cache,
      // Read with the row: a reader of state looks at the folds since its checkpoint.
      ...(this.#row === undefined ? {} : { folds: foldsOf(this.#row) }),
      maxStateValueBytes: l.stateValueBytes,
      llmViewBytes: l.llmViewBytes,
      maxObjectsPerResult: l.objectsPerResult,
      maxStagedBytes: l.stagedBytesPerStep,
      maxEntries: l.storeEntriesPerSession
    };
  }

  /** How every tool call of a mutation runs: this session's timeout and limits. */
  executeOptions(hooks: ExecutionHooks): ExecuteOptions {
    return {
      hooks,
      defaultTimeoutMs: this.options.toolTimeoutMs,
      maxContentBytes: this.options.limits.toolContentBytes,
      jsonLimits: this.options.limits,
      ...(this.isolates ? { isolates: this.isolates } : {}),
      ...(this.mapStack ? { mapStack: this.mapStack } : {})
    };
  }

  /** The committed row, read once per object; undefined without a session. */
  loadRow(): SessionRow | undefined {
    if (this.#row === undefined && schemaVersion(this.sql) !== undefined) {
      this.#row = readSessionRow(this.sql);
    }
    return this.#row;
  }

  requireRow(): SessionRow {
    const row = this.loadRow();
    if (row === undefined) {
      throw new RoostError(
        "not_found",
        "This session does not exist (it was deleted or expired)."
      );
    }
    return row;
  }

  /** Which scopes were revoked before when: read once per object. */
  revocations(): Revocations {
    this.#revocations ??= readRevocations(this.sql);
    return this.#revocations;
  }

  /** Revokes `scope`'s tokens signed before `at`; durable once the caller's commit is. */
  revoke(scope: Scope, at: number): void {
    const next = { ...this.revocations(), [scope]: at };
    writeRevocations(this.sql, next);
    this.#revocations = next;
  }

  /** After a commit: the row as it now stands in storage. */
  committed(row: SessionRow): void {
    this.#row = row;
  }

  /** After every row was deleted: the object holds no session any more. */
  forget(): void {
    this.#row = undefined;
    this.#revocations = undefined;
    this.#awaitingUse = undefined;
    this.cache.clear();
    this.events.reset();
    this.schedule.forget();
  }

  /** Last use as this object knows it: written lazily (see `seen`). */
  lastUsed(row: SessionRow): number {
    return Math.max(row.lastUsedAt, this.#lastSeen);
  }

  isAwaitingUse(): boolean {
    this.#awaitingUse ??= isAwaitingUse(this.sql);
    return this.#awaitingUse;
  }

  awaitingUse(): void {
    this.#awaitingUse = true;
  }

  /**
   * Records use lazily: a write at most every quarter TTL, not one per read
   * — and at once for the first use of a session awaiting it, whose short
   * TTL then gives way to the full one.
   */
  seen(row: SessionRow): void {
    const now = this.now();
    this.#lastSeen = now;
    if (this.isAwaitingUse()) {
      clearAwaitingUse(this.sql);
      this.#awaitingUse = false;
      touchSession(this.sql, now);
      row.lastUsedAt = now;
    } else if (now - row.lastUsedAt > this.options.idleTtlMs / 4) {
      touchSession(this.sql, now);
      row.lastUsedAt = now;
    }
  }

  /**
   * Appends an event; a large result goes in parts. Outside a mutation it
   * is written and handed to the listeners at once. A mutation's events
   * wait for its commit, which writes them in one row with everything
   * else; if the mutation is still running when the turn yields (a slow
   * tool), they are published then, so results still stream as they happen.
   */
  emit<T extends EventType>(
    episode: number,
    type: T,
    data: EventData<T>
  ): void {
    const parts =
      type === "result"
        ? splitResult(data as unknown as EventData<"result">)
        : [data as Record<string, unknown>];
    for (const part of parts) this.events.append(episode, type, part);
    if (this.#mark === undefined) this.publish();
    else this.#publishTimer ??= setTimeout(() => this.#publishEarly(), 0);
  }

  /**
   * Writes every appended event and hands it to the listeners: nothing is
   * seen before it is durable. Before a mutation's commit, its in-flight
   * mark goes in the same transaction, so a restart marks them aborted.
   */
  publish(): void {
    this.#clearTimer();
    if (!this.events.pending) return;
    const mark = this.#mark;
    this.#announce(
      this.storage.transactionSync(() => {
        mark?.();
        return this.events.flush();
      })
    );
  }

  /**
   * The timer's publish, with no caller to throw to: if the write fails,
   * the events stay appended (event-log.ts) and the commit writes them.
   */
  #publishEarly(): void {
    try {
      this.publish();
    } catch (error) {
      console.error(
        "Roost: publishing a mutation's events early failed",
        error
      );
    }
  }

  /** A mutation starts: its events wait for its commit (or `publish`). */
  hold(mark: () => void): void {
    this.#mark = mark;
  }

  /**
   * The mutation ended, and its commit or abandon wrote `written`. Its
   * early-publish timer is left to run: it publishes only what is pending
   * when it fires, which is what the next mutation's own timer would do,
   * so frames that arrive back to back share one timer instead of each
   * setting and clearing its own.
   */
  release(written: readonly EventText[]): void {
    this.#mark = undefined;
    this.#announce(written);
  }

  #announce(written: readonly EventText[]): void {
    for (const event of written) this.onEvent(event);
  }

  #clearTimer(): void {
    if (this.#publishTimer === undefined) return;
    clearTimeout(this.#publishTimer);
    this.#publishTimer = undefined;
  }
}
