/**
 * @module The commit protocol: a mutation stages its writes in overlays
 * under an in-flight marker, and either commits them, its events and its
 * idempotent response in one transaction, or is abandoned (its streamed
 * events marked `step.aborted`).
 */

import type { Environment } from "../environment/define-environment";
import {
  type EpisodeNeed,
  openEpisode,
  requireEpisode
} from "../environment/episode-machine";
import type { SessionParts } from "../environment/hook-calls";
import { RoostError } from "../errors";
import type { Emit } from "../protocol";
import { OWNED_EVENTS } from "../protocol/agents";
import type { StateDefinition } from "../state/define-state";
import { stagedParts } from "../storage/episode-parts";
import type { PendingEvent } from "../storage/event-log";
import type { IdempotencyKey } from "../storage/idempotency";
import * as idempotency from "../storage/idempotency";
import type { RescoreStep } from "../storage/rescore-rows";
import { dropTreeRowsBefore } from "../storage/run-rows";
import {
  type Inflight,
  type SessionRow,
  writeInflight
} from "../storage/session-row";
import { checkpoint, commitRow, foldsOf } from "../storage/state-folds";
import { SqliteStoreBackend } from "../storage/store-backend";
import type { ExecutionHooks } from "../tools/types";
import type { Capture, CommitObserver } from "./commit-hooks";
import { TokenBucket } from "./rate-limit";
import type { SessionShared } from "./shared";
import { exceptionLogLine, toolHooks } from "./tool-events";

export type MutationKind = "reset" | "step" | "call" | "edit" | "run" | "pass";

/** What a mutation's body gets: a staged view of the session and ways to add to its commit. */
export interface MutationContext {
  /** The session row as this mutation will commit it. */
  row: SessionRow;
  environment: Environment;
  parts: SessionParts;
  hooks: ExecutionHooks;
  emit: Emit;
  /** Runs inside the commit's transaction, after the staged writes. */
  onCommit(write: () => void): void;
  /** Runs once the commit is durable (wakes waiters, never writes). */
  afterCommit(fn: () => void): void;
  /** Records a step's place for re-scoring (kept only where it is needed). */
  recordStep(step: RescoreStep): void;
  /**
   * Makes this mutation a step of `agent`'s: the events its tools and
   * store make from now on are tagged as that agent's (protocol/agents.ts).
   */
  actAs(agent: string): void;
}

/** What each kind needs of the committed episode before it may run. */
const NEEDS: Record<MutationKind, EpisodeNeed> = {
  reset: "nothing",
  step: "running",
  call: "episode",
  edit: "episode",
  run: "episode",
  pass: "episode"
};

/** What a log line says a tool threw during. */
const DURING: Record<MutationKind, (step?: number) => string> = {
  reset: () => "reset",
  step: (step) => `step ${step}`,
  call: () => "direct call",
  edit: () => "edit",
  run: () => "tree run",
  pass: () => "tree run"
};

export class Committer {
  readonly #shared: SessionShared;
  /** Keyed mutations in progress: a retry meanwhile gets the first's answer. */
  readonly #running = new Map<
    string,
    { hash: string; done: Promise<unknown> }
  >();
  #bucket: TokenBucket | undefined;
  readonly #captures: Capture[] = [];
  readonly #observers: CommitObserver[] = [];

  constructor(shared: SessionShared) {
    this.#shared = shared;
  }

  /** Adds a capture (a layer's, when its object starts). */
  capture(capture: Capture): void {
    this.#captures.push(capture);
  }

  /** Adds an observer of every durable commit (a layer's, when its object starts). */
  observe(observer: CommitObserver): void {
    this.#observers.push(observer);
  }

  /** Sets (or, with `undefined`, removes) the per-session rate of mutating calls. */
  setRateLimit(perSecond: number | undefined): void {
    this.#bucket =
      perSecond === undefined
        ? undefined
        : new TokenBucket(perSecond, this.#shared.now());
  }

  /**
   * Runs a mutation through the queue: a stored response for a repeated
   * key, the running one for a retry in flight, else a throttled commit.
   */
  async mutate<T>(
    kind: MutationKind,
    idem: IdempotencyKey | undefined,
    body: (m: MutationContext) => Promise<T>
  ): Promise<T> {
    const shared = this.#shared;
    shared.requireRow();
    const sent: Promise<void>[] = [];
    if (idem === undefined) {
      this.throttle();
      const value = await shared.queue.run(() =>
        this.commit(kind, undefined, body, sent)
      );
      await settled(sent);
      return value;
    }
    const stored = idempotency.lookup(shared.sql, idem, shared.now());
    if (stored !== undefined) return stored as T;
    const id = `${idem.scope}\u0000${idem.key}`;
    const running = this.#running.get(id);
    if (running !== undefined) {
      if (running.hash !== idem.hash) {
        throw new RoostError(
          "idempotency_mismatch",
          `Idempotency-Key "${idem.key}" is in use by a request with a different body.`
        );
      }
      return running.done as Promise<T>;
    }
    this.throttle();
    const done = shared.queue
      .run(() => this.commit(kind, idem, body, sent))
      .then(async (value) => {
        await settled(sent);
        return value;
      });
    this.#running.set(id, { hash: idem.hash, done });
    try {
      return await done;
    } finally {
      this.#running.delete(id);
    }
  }

  /**
   * One mutation, staged and committed whole or not at all. Call it inside
   * the queue. What observers answer goes into `sent`, for the caller to
   * await once the queue moved on (unawaited without it).
   */
  async commit<T>(
    kind: MutationKind,
    idem: IdempotencyKey | undefined,
    body: (m: MutationContext) => Promise<T>,
    sent?: Promise<void>[]
  ): Promise<T> {
    const shared = this.#shared;
    const committed = shared.requireRow();
    if (idem !== undefined) {
      // It may have committed while this request waited in the queue.
      const stored = idempotency.lookup(shared.sql, idem, shared.now());
      if (stored !== undefined) return stored as T;
    }
    requireEpisode(committed, NEEDS[kind]);
    const row: SessionRow = { ...committed };
    const environment = shared.registry.get(row.environment);
    if (kind === "reset") openEpisode(row);
    const inflight: Inflight = {
      kind,
      episode: row.episode,
      firstSeq: shared.events.lastAssigned + 1,
      ...(kind === "step" ? { step: row.steps + 1 } : {}),
      counters: {}
    };
    let actor: string | undefined;
    const emit: Emit = (type, data) =>
      shared.emit(
        row.episode,
        type,
        actor !== undefined && OWNED_EVENTS.has(type)
          ? { ...data, agent: actor }
          : data
      );
    const staged = stagedParts(
      shared.sql,
      row.episode,
      environment.state as StateDefinition<never>,
      shared.storageOptions,
      {
        // Kept for the mark: ids handed out must outlive an abort once seen.
        onCounter: (tool, name, value) => {
          inflight.counters[`${tool}\u0000${name}`] = value;
        },
        emit
      }
    );
    const commits: (() => void)[] = [];
    let stepRecord: RescoreStep | undefined;
    const after: (() => void)[] = [];
    let response: T;
    let written: PendingEvent[] = [];
    // The mark is written only if an event is published before the
    // commit (session/shared.ts): a mutation that commits within its turn
    // leaves nothing behind to repair, so it costs no row of its own.
    let marked = false;
    shared.hold(() => {
      writeInflight(shared.sql, inflight);
      marked = true;
    });
    try {
      response = await body({
        row,
        environment,
        parts: staged.parts,
        hooks: toolHooks(emit, {
          stacks: shared.dev,
          log: (call, exception) =>
            console.error(
              exceptionLogLine(
                {
                  sessionId: row.sessionId,
                  episode: row.episode,
                  during: DURING[kind](inflight.step)
                },
                call,
                exception
              )
            )
        }),
        emit,
        onCommit: (write) => commits.push(write),
        afterCommit: (fn) => after.push(fn),
        recordStep: (step) => {
          stepRecord = step;
        },
        actAs: (agent) => {
          actor = agent;
        }
      });
      // A tool may have caught the refusal; the mutation is refused anyway.
      if (staged.meter.exceeded !== undefined) throw staged.meter.exceeded;
      row.lastUsedAt = shared.now();
      // Before the flush, which forgets what it applies.
      const captured: (() => void)[] = [];
      for (const capture of this.#captures) {
        const write = capture({
          kind,
          environment,
          row,
          firstSeq: inflight.firstSeq,
          hiddenChanges: () => staged.hiddenChanges(),
          step: stepRecord
        });
        if (write !== undefined) captured.push(write);
      }
      shared.storage.transactionSync(() => {
        for (const write of captured) write();
        staged.flush();
        for (const write of commits) write();
        let folding: boolean;
        ({ written, folded: folding } = commitRow(
          shared.sql,
          shared.events,
          staged,
          { committed, row, reset: kind === "reset", marked }
        ));
        this.#bookkeeping(kind, row, idem, response, folding);
      });
    } catch (error) {
      staged.discard();
      // What the rolled-back transaction wrote into the cache never was.
      shared.cache.clear();
      // The commit's transaction rolled back: its events were not written.
      if (written.length > 0) shared.events.unflush(written);
      written = [];
      try {
        shared.storage.transactionSync(() => {
          this.abandon(inflight, committed.episode);
          written = shared.events.flush();
        });
      } finally {
        shared.release(written);
      }
      throw error;
    }
    shared.committed(row);
    shared.release(written);
    for (const fn of after) fn();
    await shared.schedule.arm();
    for (const observer of this.#observers) {
      const done = observer({ kind, environment, before: committed, row });
      if (done !== undefined) sent?.push(done);
    }
    return response;
  }

  /** What every commit writes besides the mutation's own and its checkpoint: key, timers, retention. */
  #bookkeeping(
    kind: MutationKind,
    row: SessionRow,
    idem: IdempotencyKey | undefined,
    response: unknown,
    folded: boolean
  ): void {
    const shared = this.#shared;
    const now = shared.now();
    if (kind === "reset" && row.episode > 1) {
      dropTreeRowsBefore(shared.sql, row.episode);
      // Only a later reset leaves an old episode to purge. The idle timer
      // is not moved per commit: the alarm re-checks last use when it fires.
      shared.schedule.set("purge", now);
    }
    if (idem !== undefined) {
      idempotency.record(shared.sql, idem, response, now);
      // The earliest record expires first: an existing timer stays right.
      shared.schedule.setIfAbsent(
        "idempotency",
        now + idempotency.IDEMPOTENCY_TTL_MS
      );
    }
    const limits = shared.options.limits;
    const trim = () =>
      shared.events.trim(
        limits.eventsRetained,
        limits.eventsRetainedBytes,
        row.asOf ?? 0
      );
    if (trim().held && folded) {
      // Retention reached the tables' checkpoint: write it, so the rows
      // between may go (about once per retained log's worth of events).
      checkpoint(
        shared.sql,
        row,
        foldsOf(row),
        new Map(),
        shared.events.lastSeq
      );
      trim();
    }
  }

  /**
   * Closes a mutation that will never commit: its events are marked aborted,
   * and the `_REF_ID` counters it handed out are kept, because those ids
   * were already streamed and must not be reused.
   */
  abandon(inflight: Inflight, episode: number): void {
    const shared = this.#shared;
    const store = new SqliteStoreBackend(shared.sql, inflight.episode);
    for (const [key, value] of Object.entries(inflight.counters)) {
      const [tool, name] = key.split("\u0000") as [string, string];
      store.setEntryCounter(tool, name, value);
    }
    if (shared.events.lastAssigned >= inflight.firstSeq) {
      shared.emit(episode, "step.aborted", {
        first_seq: inflight.firstSeq,
        ...(inflight.step === undefined ? {} : { step: inflight.step })
      });
    }
    writeInflight(shared.sql, null);
  }

  /** Retries of stored responses are free; everything that may run costs a token. */
  throttle(): void {
    const taken = this.#bucket?.take(this.#shared.now());
    if (taken !== undefined && !taken.ok) {
      throw new RoostError(
        "rate_limited",
        `Over ${this.#bucket!.perSecond} mutating calls a second for this session; retry after ${taken.retryAfter} s.`,
        { retry_after_seconds: taken.retryAfter }
      );
    }
  }
}

/** Waits for what observers answered; each bounds its own wait and never throws. */
const settled = async (sent: readonly Promise<void>[]): Promise<void> => {
  if (sent.length > 0) await Promise.allSettled(sent);
};
