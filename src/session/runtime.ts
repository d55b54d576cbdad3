/** @module A session's logic: every operation, the mutation queue and the commit — no platform entry points. */

import type { Environment } from "../environment/define-environment";
import {
  invokeTool,
  runReset,
  runStep,
  type SessionParts
} from "../environment/episode";
import type { Registry } from "../environment/registry";
import { resolveTask } from "../environment/task";
import { type ErrorBody, RoostError, toErrorBody } from "../errors";
import type { JsonValue } from "../json";
import type { AssistantMessage } from "../messages/schema";
import type {
  ResetResponse,
  RunState,
  RunStatus,
  SessionStatus,
  StepResponse,
  ToolInvocationResponse
} from "../protocol";
import { type Limits, LimitsSchema } from "../protocol/limits";
import type { StateDefinition } from "../state/define-state";
import type { TranscriptBackend } from "../state/types";
import {
  committedParts,
  type StorageOptions,
  stagedParts
} from "../storage/episode-parts";
import { EventLog, type StoredEvent } from "../storage/event-log";
import {
  clearAwaitingUse,
  isAwaitingUse,
  markAwaitingUse
} from "../storage/first-use";
import type { IdempotencyKey } from "../storage/idempotency";
import * as idempotency from "../storage/idempotency";
import { purgeEpisodesBefore } from "../storage/purge";
import {
  activeRun,
  dropTreeRowsBefore,
  type RunRow,
  readRun,
  readTreeRows,
  requestCancel,
  runStatus,
  writeRun,
  writeTreeRows
} from "../storage/run-rows";
import { migrate, schemaVersion } from "../storage/schema";
import {
  type Inflight,
  insertSessionRow,
  readSessionRow,
  type SessionRow,
  touchSession,
  writeEpisode,
  writeInflight
} from "../storage/session-row";
import { SqliteTranscriptBackend } from "../storage/state-backend";
import { SqliteStoreBackend } from "../storage/store-backend";
import type { KeyInfo } from "../store/types";
import type { ExecuteOptions } from "../tools/execute";
import type { ExecutionHooks } from "../tools/types";
import { runPass } from "../tree/loop";
import { ModelError } from "../tree/model-error";
import { createModelResolver, type ModelResolver } from "./models";
import type { ResolvedOptions } from "./options";
import { MutationQueue } from "./queue";
import { TokenBucket } from "./rate-limit";
import { Schedule } from "./schedule";
import { splitResult } from "./split-result";

/** What a mutation's body gets and gives back. */
interface MutationContext {
  row: SessionRow;
  env: Environment;
  parts: SessionParts;
  hooks: ExecutionHooks;
  emit(type: string, data: Record<string, unknown>): void;
  /** Runs inside the commit's transaction, after the staged writes. */
  onCommit(write: () => void): void;
}

type MutationKind = "reset" | "step" | "call" | "edit" | "run" | "pass";

/** A pass that dies with its object is retried this long after it started. */
const RUN_RESUME_MS = 1000;
/**
 * Wall time one alarm spends driving passes before it hands over to the
 * next alarm: the platform ends an alarm handler after 15 minutes, and a
 * pass with a slow model can take minutes.
 */
const RUN_DRIVE_BUDGET_MS = 5 * 60_000;

/** A model's failure is reported as such; anything else unexpected stays opaque. */
const runError = (error: unknown): ErrorBody => {
  if (error instanceof ModelError) {
    return {
      code: "model_error",
      message: `The decision model failed: ${error.message}`,
      ...(error.status === undefined
        ? {}
        : { details: { status: error.status } })
    };
  }
  if (!(error instanceof RoostError))
    console.error("Roost: a run failed", error);
  return toErrorBody(error);
};

const isActive = (state: RunState): boolean =>
  state === "queued" || state === "running";

export class SessionRuntime {
  /** Injectable clock: tests move time instead of waiting. */
  now: () => number = Date.now;
  /** Called with every event after it is written (the socket layer listens). */
  onEvent: (event: StoredEvent) => void = () => {};

  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  readonly #registry: Registry;
  #options: ResolvedOptions;
  readonly #queue = new MutationQueue();
  readonly #events: EventLog;
  readonly #schedule: Schedule;
  readonly #running = new Map<
    string,
    { hash: string; done: Promise<unknown> }
  >();
  #row: SessionRow | undefined;
  #lastSeen = 0;
  /** Whether the session awaits its first real use (first-use.ts); undefined until read. */
  #awaitingUse: boolean | undefined;
  #bucket: TokenBucket | undefined;
  readonly #models: ModelResolver;
  /** Callers of `waitRun`, woken when their run finishes. */
  readonly #runWaiters = new Map<string, Set<() => void>>();
  #driving = false;

  constructor(
    storage: DurableObjectStorage,
    registry: Registry,
    options: ResolvedOptions,
    models: ModelResolver = createModelResolver({})
  ) {
    this.#models = models;
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#registry = registry;
    this.#options = options;
    this.#events = new EventLog(this.#sql);
    this.#schedule = new Schedule(storage);
    if (options.rateLimit) this.setRateLimit(options.limits.mutationsPerSecond);
  }

  /** Sets (or, with `undefined`, removes) the per-session rate of mutating calls. */
  setRateLimit(perSecond: number | undefined): void {
    this.#bucket =
      perSecond === undefined
        ? undefined
        : new TokenBucket(perSecond, this.now());
  }

  /** Overrides some limits in this object only, until it restarts (tests tighten them). */
  setLimits(limits: Partial<Limits>): void {
    const merged = LimitsSchema.parse({ ...this.#options.limits, ...limits });
    this.#options = { ...this.#options, limits: merged };
  }

  get #storageOptions(): StorageOptions {
    const l = this.#options.limits;
    return {
      maxStateValueBytes: l.stateValueBytes,
      llmViewBytes: l.llmViewBytes,
      maxObjectsPerResult: l.objectsPerResult,
      maxStagedBytes: l.stagedBytesPerStep,
      maxEntries: l.storeEntriesPerSession
    };
  }

  /**
   * Runs once when the object wakes: a mutation that was in flight when the
   * object died left events behind; mark them aborted. Nothing else needs
   * repair, because nothing else was written before its commit.
   */
  recover(): void {
    if (schemaVersion(this.#sql) === undefined) return;
    // A session older code created gets the tables this code added.
    this.#storage.transactionSync(() => migrate(this.#sql));
    const row = readSessionRow(this.#sql);
    if (row?.inflight == null) return;
    this.#storage.transactionSync(() =>
      this.#abandon(row.inflight!, row.episode)
    );
  }

  /**
   * Closes a mutation that will never commit: its events are marked aborted,
   * and the `_REF_ID` counters it handed out are kept, because those ids
   * were already streamed and must not be reused.
   */
  #abandon(inflight: Inflight, episode: number): void {
    const store = new SqliteStoreBackend(this.#sql, inflight.episode);
    for (const [key, value] of Object.entries(inflight.counters)) {
      const [tool, name] = key.split("\u0000") as [string, string];
      store.setEntryCounter(tool, name, value);
    }
    if (this.#events.lastSeq >= inflight.firstSeq) {
      this.#emitEvent(episode, "step.aborted", {
        first_seq: inflight.firstSeq,
        ...(inflight.step === undefined ? {} : { step: inflight.step })
      });
    }
    writeInflight(this.#sql, null);
  }

  // ---- lifecycle -------------------------------------------------------

  async create(init: {
    sessionId: string;
    environment: string;
    task: unknown;
  }): Promise<SessionStatus> {
    if (schemaVersion(this.#sql) !== undefined) {
      throw new RoostError("conflict", "This session already exists.");
    }
    this.#registry.get(init.environment);
    const now = this.now();
    this.#storage.transactionSync(() => {
      migrate(this.#sql);
      insertSessionRow(this.#sql, {
        sessionId: init.sessionId,
        environment: init.environment,
        task: init.task,
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
      });
      this.#schedule.set("ttl", now + this.#options.idleTtlMs);
    });
    await this.#schedule.arm();
    return this.status();
  }

  status(): SessionStatus {
    const row = this.#requireRow();
    this.#seen(row);
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
      last_used_at: new Date(
        Math.max(row.lastUsedAt, this.#lastSeen)
      ).toISOString()
    };
  }

  /**
   * Puts the session on probation: unless a later request uses it, it is
   * deleted after `unusedTtlMs` idle instead of `idleTtlMs` (first-use.ts).
   */
  async expectUse(): Promise<void> {
    this.#requireRow();
    const now = this.now();
    this.#storage.transactionSync(() => {
      markAwaitingUse(this.#sql);
      touchSession(this.#sql, now);
      this.#schedule.set("ttl", now + this.#options.unusedTtlMs);
    });
    this.#row = readSessionRow(this.#sql);
    this.#awaitingUse = true;
    await this.#schedule.arm();
  }

  /** Deletes every row and the alarm; later requests find no session (404). */
  async destroy(): Promise<void> {
    this.#requireRow();
    await this.#queue.run(async () => {
      await this.#storage.deleteAll();
      this.#row = undefined;
      this.#awaitingUse = undefined;
      this.#events.reset();
      this.#schedule.forget();
    });
  }

  // ---- mutations ---------------------------------------------------------

  reset(
    request: { task?: unknown },
    idem?: IdempotencyKey
  ): Promise<ResetResponse> {
    return this.#mutate("reset", idem, async (m) => {
      // The creation task is the default; either way it goes through the
      // environment's schema, so defaults apply to an omitted task too.
      const task = resolveTask(m.env, {
        task: request.task === undefined ? m.row.task : request.task
      });
      m.emit("reset", { episode: m.row.episode });
      this.#cancelActiveRunOnCommit(m, "The session was reset.");
      const { observations } = await runReset(m.env, m.parts, task, {
        hooks: m.hooks
      });
      Object.assign(m.row, {
        episodeTask: task,
        steps: 0,
        reward: 0,
        total: 0,
        done: false,
        truncated: false
      });
      return { observations, tools: [...m.env.toolSchemas] };
    });
  }

  step(action: AssistantMessage, idem?: IdempotencyKey): Promise<StepResponse> {
    return this.#mutate("step", idem, async (m) => {
      const max = this.#options.limits.toolCallsPerAction;
      if ((action.tool_calls?.length ?? 0) > max) {
        throw new RoostError(
          "payload_too_large",
          `An action may make at most ${max} tool calls.`,
          { limit: "toolCallsPerAction", max }
        );
      }
      const step = m.row.steps + 1;
      const out = await runStep(
        m.env,
        m.parts,
        m.row.episodeTask,
        step,
        action,
        this.#executeOptions(m)
      );
      Object.assign(m.row, {
        steps: step,
        reward: out.reward,
        total: m.row.total + out.reward,
        done: out.done,
        truncated: out.truncated
      });
      m.emit("step", {
        step,
        reward: out.reward,
        done: out.done,
        truncated: out.truncated
      });
      return {
        observations: out.observations,
        reward: out.reward,
        done: out.done,
        truncated: out.truncated
      };
    });
  }

  callTool(
    call: { tool: string; arguments: Record<string, unknown> },
    idem?: IdempotencyKey
  ): Promise<ToolInvocationResponse> {
    return this.#mutate("call", idem, async (m) => {
      if (!m.env.tools.has(call.tool)) {
        throw new RoostError(
          "not_found",
          `Environment ${m.env.name} has no tool "${call.tool}".`,
          { tool: call.tool }
        );
      }
      const id = `direct_${this.#events.lastSeq + 1}`;
      const out = await invokeTool(
        m.env,
        m.parts,
        m.row.episodeTask,
        { id, ...call },
        this.#executeOptions(m)
      );
      return {
        content: out.message.content,
        is_error: out.message.is_error,
        results: out.results
      };
    });
  }

  /** A store edit or a state write from a route: a mutation like any other. */
  edit<T>(
    apply: (parts: SessionParts, emit: MutationContext["emit"]) => T,
    idem?: IdempotencyKey
  ): Promise<T> {
    return this.#mutate("edit", idem, async (m) => apply(m.parts, m.emit));
  }

  // ---- decision-tree runs --------------------------------------------------

  /** Queues a run: 202 at once; passes run from the alarm, each committed alone. */
  startRun(
    request: { prompt: string; model?: string },
    idem?: IdempotencyKey
  ): Promise<{ run_id: string }> {
    // Answered at once: inside the queue this would wait for the running pass.
    if (
      idem === undefined ||
      idempotency.lookup(this.#sql, idem, this.now()) === undefined
    ) {
      this.#refuseWhileRunning();
    }
    return this.#mutate("run", idem, async (m) => {
      if (m.env.tree === undefined) {
        throw new RoostError(
          "invalid_request",
          `Environment ${m.env.name} defines no decision tree; runs need one.`
        );
      }
      this.#refuseWhileRunning();
      const { name } = this.#models(request.model, m.env);
      const now = this.now();
      const run: RunRow = {
        runId: crypto.randomUUID(),
        episode: m.row.episode,
        prompt: request.prompt,
        model: name,
        state: "running",
        passes: 0,
        decisions: 0,
        cancelRequested: false,
        createdAt: now,
        updatedAt: now
      };
      m.parts.state.set("messages", { role: "user", content: request.prompt });
      m.onCommit(() => {
        writeRun(this.#sql, run);
        this.#schedule.set("run", now);
      });
      return { run_id: run.runId };
    });
  }

  /** How every tool call of a mutation runs: this session's timeout and limits. */
  #executeOptions(m: MutationContext): ExecuteOptions {
    return {
      hooks: m.hooks,
      defaultTimeoutMs: this.#options.toolTimeoutMs,
      maxContentBytes: this.#options.limits.toolContentBytes,
      jsonLimits: this.#options.limits
    };
  }

  #refuseWhileRunning(): void {
    const running = activeRun(this.#sql);
    if (running !== undefined) {
      throw new RoostError(
        "conflict",
        `Run ${running.runId} is still going; wait for it or cancel it first.`,
        { run_id: running.runId }
      );
    }
  }

  readRun(runId: string): RunStatus {
    const row = this.#requireRow();
    this.#seen(row);
    const run = readRun(this.#sql, runId);
    if (run === undefined) {
      throw new RoostError("not_found", `No run "${runId}" in this session.`, {
        run_id: runId
      });
    }
    return runStatus(run, readTreeRows(this.#sql, run.episode));
  }

  /** The run's status once it finished, or after `ms`, whichever is first. */
  async waitRun(runId: string, ms: number): Promise<RunStatus> {
    const status = this.readRun(runId);
    if (ms <= 0 || !isActive(status.state)) return status;
    await new Promise<void>((resolve) => {
      const waiters = this.#runWaiters.get(runId) ?? new Set();
      this.#runWaiters.set(runId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
    return this.readRun(runId);
  }

  /** Bypasses the queue: a flag the loop reads between passes. */
  cancelRun(runId: string): RunStatus {
    this.readRun(runId);
    requestCancel(this.#sql, runId);
    return this.readRun(runId);
  }

  #cancelActiveRunOnCommit(m: MutationContext, why: string): void {
    const run = activeRun(this.#sql);
    if (run === undefined) return;
    m.emit("tree.completed", {
      run_id: run.runId,
      payload: { state: "cancelled", reason: why }
    });
    m.onCommit(() => {
      writeRun(this.#sql, {
        ...run,
        state: "cancelled",
        updatedAt: this.now()
      });
    });
    this.#afterCommit.push(() => this.#wakeWaiters(run.runId));
  }

  #afterCommit: (() => void)[] = [];

  #wakeWaiters(runId: string): void {
    for (const wake of [...(this.#runWaiters.get(runId) ?? [])]) wake();
    this.#runWaiters.delete(runId);
  }

  /**
   * Runs passes until no run is active. Called from the alarm; before each
   * pass the alarm is set a little ahead, so a pass that dies with its object
   * is picked up again by the next instance.
   */
  async #driveRuns(): Promise<void> {
    if (this.#driving) return;
    this.#driving = true;
    const began = this.now();
    try {
      for (;;) {
        // The "run" timer is still set: the next alarm picks the run up.
        if (this.now() - began > RUN_DRIVE_BUDGET_MS) return;
        const run = activeRun(this.#sql);
        if (run === undefined || run.episode !== this.#requireRow().episode) {
          this.#schedule.clear("run");
          return;
        }
        if (run.cancelRequested) {
          this.#finishRun(run, { state: "cancelled" });
          continue;
        }
        // Moved only when it comes near: a pass that dies with its object
        // is still picked up within RUN_RESUME_MS, and quick passes do not
        // each pay a timer write and an alarm write.
        const resumeAt = this.#schedule.dueAt("run");
        if (
          resumeAt === undefined ||
          resumeAt < this.now() + RUN_RESUME_MS / 2
        ) {
          this.#schedule.set("run", this.now() + RUN_RESUME_MS);
          await this.#schedule.arm();
        }
        try {
          await this.#queue.run(async () => {
            // A reset or cancel may have come first while this waited.
            const latest = readRun(this.#sql, run.runId);
            if (
              latest === undefined ||
              !isActive(latest.state) ||
              latest.cancelRequested
            ) {
              return;
            }
            await this.#commitOne("pass", undefined, (m) =>
              this.#pass(m, latest)
            );
          });
        } catch (error) {
          const latest = readRun(this.#sql, run.runId);
          if (latest !== undefined && isActive(latest.state)) {
            this.#finishRun(latest, {
              state: "failed",
              error: runError(error)
            });
          }
        }
      }
    } finally {
      this.#driving = false;
    }
  }

  /** A run that ends outside a pass (cancelled between passes, or failed). */
  #finishRun(
    run: RunRow,
    end: { state: "cancelled" | "failed"; error?: ErrorBody }
  ): void {
    const episode = this.#requireRow().episode;
    this.#storage.transactionSync(() => {
      writeRun(this.#sql, {
        ...run,
        state: end.state,
        ...(end.error ? { error: end.error } : {}),
        updatedAt: this.now()
      });
      this.#emitEvent(episode, "tree.completed", {
        run_id: run.runId,
        payload: {
          state: end.state,
          ...(end.error ? { error: end.error } : {})
        }
      });
    });
    this.#wakeWaiters(run.runId);
  }

  async #pass(m: MutationContext, run: RunRow): Promise<void> {
    const tree = m.env.tree;
    if (tree === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${m.env.name} no longer defines a decision tree.`
      );
    }
    const { model } = this.#models(run.model, m.env);
    const rows = readTreeRows(this.#sql, run.episode);
    const result = await runPass({
      env: m.env,
      tree,
      parts: m.parts,
      task: m.row.episodeTask,
      model,
      progress: {
        runId: run.runId,
        prompt: run.prompt,
        passes: run.passes,
        decisions: run.decisions,
        tasks: rows.tasks,
        errors: rows.errors
      },
      emit: m.emit,
      execute: this.#executeOptions(m)
    });
    const p = result.progress;
    const next: RunRow = {
      ...run,
      passes: p.passes,
      decisions: p.decisions,
      updatedAt: this.now(),
      ...(result.end
        ? {
            state: "completed",
            outcome: result.end.outcome,
            finalText: result.end.text
          }
        : {})
    };
    if (result.end) {
      m.emit("tree.completed", {
        run_id: run.runId,
        payload: {
          state: "completed",
          outcome: result.end.outcome,
          text: result.end.text,
          passes: p.passes
        }
      });
      this.#afterCommit.push(() => this.#wakeWaiters(run.runId));
    }
    m.onCommit(() => {
      writeRun(this.#sql, next);
      writeTreeRows(this.#sql, run.episode, {
        tasks: p.tasks,
        errors: p.errors
      });
    });
  }

  // ---- reads (bypass the queue: they see what was committed) -------------

  read<T>(
    fn: (parts: SessionParts, env: Environment, row: SessionRow) => T
  ): T {
    const row = this.#requireRow();
    this.#seen(row);
    const env = this.#registry.get(row.environment);
    const parts = committedParts(
      this.#sql,
      row.episode,
      env.state as StateDefinition<never>,
      this.#storageOptions
    );
    return fn(parts, env, row);
  }

  /** Whether this object holds a session (a probe creates nothing). */
  exists(): boolean {
    return this.#loadRow() !== undefined;
  }

  /** The event log, for replays. */
  get events(): EventLog {
    return this.#events;
  }

  /** What a new socket sees first: status, state and store keys with counts — never entries. */
  snapshot(): {
    status: SessionStatus;
    state: Record<string, JsonValue>;
    keys: KeyInfo[];
    last_seq: number;
  } {
    const status = this.status();
    return this.read((parts) => ({
      status,
      state: parts.state.toJSON(),
      keys: parts.environment.keys(),
      last_seq: this.#events.lastSeq
    }));
  }

  /** The event log over HTTP: `gone` once events after `after` were trimmed. */
  readEvents(
    after: number,
    limit: number
  ): { events: StoredEvent[]; next_after: number } {
    const row = this.#requireRow();
    this.#seen(row);
    const oldest = this.#events.oldestSeq;
    if (oldest > 0 && after < oldest - 1) {
      throw new RoostError(
        "gone",
        `Events after ${after} are no longer retained; the oldest is ${oldest}. Read the session afresh (GET the snapshot routes) and continue from its last seq.`,
        { oldest_seq: oldest }
      );
    }
    const events = this.#events.after(after, limit);
    return { events, next_after: events.at(-1)?.seq ?? Math.max(after, 0) };
  }

  /** The committed transcript, read a page at a time. */
  readTranscript<T>(fn: (transcript: TranscriptBackend) => T): T {
    const row = this.#requireRow();
    this.#seen(row);
    return fn(new SqliteTranscriptBackend(this.#sql, row.episode));
  }

  // ---- alarm ------------------------------------------------------------

  async alarm(openSockets: number): Promise<void> {
    // The alarm that fired is gone; whatever comes next must be set anew.
    this.#schedule.forget();
    const row = this.#loadRow();
    if (row === undefined) return;
    const now = this.now();
    for (const kind of this.#schedule.due(now)) {
      if (kind === "ttl") {
        const idleSince = Math.max(row.lastUsedAt, this.#lastSeen);
        const ttl = this.#isAwaitingUse()
          ? this.#options.unusedTtlMs
          : this.#options.idleTtlMs;
        if (openSockets > 0 || now < idleSince + ttl) {
          // Someone is watching or the session was used since: look again later.
          this.#schedule.set("ttl", Math.max(now, idleSince) + ttl);
        } else {
          await this.#storage.deleteAll();
          this.#row = undefined;
          this.#awaitingUse = undefined;
          this.#events.reset();
          return;
        }
      } else if (kind === "purge") {
        const batch = this.#options.purgeBatch;
        const deleted = this.#storage.transactionSync(() =>
          purgeEpisodesBefore(this.#sql, row.episode, batch)
        );
        if (deleted < batch) this.#schedule.clear("purge");
        else this.#schedule.set("purge", now);
      } else if (kind === "run") {
        // Drives the run to its end (or failure); passes commit one by one.
        await this.#driveRuns();
      } else if (kind === "idempotency") {
        idempotency.expire(this.#sql, now);
        const next = idempotency.nextExpiry(this.#sql);
        if (next === undefined) this.#schedule.clear("idempotency");
        else this.#schedule.set("idempotency", next);
      } else {
        this.#schedule.clear(kind);
      }
    }
    await this.#schedule.arm();
  }

  // ---- internals ----------------------------------------------------------

  #loadRow(): SessionRow | undefined {
    if (this.#row === undefined && schemaVersion(this.#sql) !== undefined) {
      this.#row = readSessionRow(this.#sql);
    }
    return this.#row;
  }

  #requireRow(): SessionRow {
    const row = this.#loadRow();
    if (row === undefined) {
      throw new RoostError(
        "not_found",
        "This session does not exist (it was deleted or expired)."
      );
    }
    return row;
  }

  #isAwaitingUse(): boolean {
    this.#awaitingUse ??= isAwaitingUse(this.#sql);
    return this.#awaitingUse;
  }

  /**
   * Records use lazily: a write at most every quarter TTL, not one per read
   * — and at once for the first use of a session awaiting it, whose short
   * TTL then gives way to the full one.
   */
  #seen(row: SessionRow): void {
    const now = this.now();
    this.#lastSeen = now;
    if (this.#isAwaitingUse()) {
      clearAwaitingUse(this.#sql);
      this.#awaitingUse = false;
      touchSession(this.#sql, now);
      row.lastUsedAt = now;
    } else if (now - row.lastUsedAt > this.#options.idleTtlMs / 4) {
      touchSession(this.#sql, now);
      row.lastUsedAt = now;
    }
  }

  #emitEvent(
    episode: number,
    type: string,
    data: Record<string, unknown>
  ): void {
    // A Result of many large objects is streamed in parts under the row limit.
    const parts =
      type === "result"
        ? splitResult(data as Record<string, unknown> & { objects: unknown[] })
        : [data];
    for (const part of parts) {
      this.onEvent(this.#events.append(episode, type, part));
    }
  }

  /** Retries of stored responses are free; everything that may run costs a token. */
  #throttle(): void {
    const taken = this.#bucket?.take(this.now());
    if (taken !== undefined && !taken.ok) {
      throw new RoostError(
        "rate_limited",
        `Over ${this.#bucket!.perSecond} mutating calls a second for this session; retry after ${taken.retryAfter} s.`,
        { retry_after_seconds: taken.retryAfter }
      );
    }
  }

  async #mutate<T>(
    kind: MutationKind,
    idem: IdempotencyKey | undefined,
    body: (m: MutationContext) => Promise<T>
  ): Promise<T> {
    this.#requireRow();
    if (idem === undefined) {
      this.#throttle();
      return this.#queue.run(() => this.#commitOne(kind, undefined, body));
    }
    const stored = idempotency.lookup(this.#sql, idem, this.now());
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
      // A retry while the first is still running gets the first's answer.
      return running.done as Promise<T>;
    }
    this.#throttle();
    const done = this.#queue.run(() => this.#commitOne(kind, idem, body));
    this.#running.set(id, { hash: idem.hash, done });
    try {
      return await done;
    } finally {
      this.#running.delete(id);
    }
  }

  async #commitOne<T>(
    kind: MutationKind,
    idem: IdempotencyKey | undefined,
    body: (m: MutationContext) => Promise<T>
  ): Promise<T> {
    const committed = this.#requireRow();
    if (idem !== undefined) {
      // It may have committed while this request waited in the queue.
      const stored = idempotency.lookup(this.#sql, idem, this.now());
      if (stored !== undefined) return stored as T;
    }
    const row: SessionRow = { ...committed };
    const running = row.episode > 0 && !row.done && !row.truncated;
    if (kind === "step" && !running) {
      throw new RoostError(
        "episode_not_running",
        row.episode === 0
          ? "Reset the session before stepping."
          : "The episode has ended; reset to start another."
      );
    }
    if (
      (kind === "call" ||
        kind === "edit" ||
        kind === "run" ||
        kind === "pass") &&
      row.episode === 0
    ) {
      throw new RoostError(
        "episode_not_running",
        "Reset the session first: it has no episode yet."
      );
    }
    const env = this.#registry.get(row.environment);
    if (kind === "reset") row.episode++;
    const inflight: Inflight = {
      kind,
      episode: row.episode,
      firstSeq: this.#events.lastSeq + 1,
      ...(kind === "step" ? { step: row.steps + 1 } : {}),
      counters: {}
    };
    writeInflight(this.#sql, inflight);
    const emit = (type: string, data: Record<string, unknown>) =>
      this.#emitEvent(row.episode, type, data);
    const staged = stagedParts(
      this.#sql,
      row.episode,
      env.state as StateDefinition<never>,
      this.#storageOptions,
      {
        onCounter: (tool, name, value) => {
          inflight.counters[`${tool}\u0000${name}`] = value;
          writeInflight(this.#sql, inflight);
        },
        emit
      }
    );
    const hooks: ExecutionHooks = {
      onStart: (c, args) =>
        emit("tool.started", { call_id: c.id, tool: c.tool, arguments: args }),
      onResult: (c, r, stored) =>
        emit("result", {
          call_id: c.id,
          tool: stored.tool,
          name: stored.name,
          index: stored.index,
          objects: stored.objects,
          metadata: stored.metadata,
          display: r.display
        }),
      onUpdate: (c, u) => {
        const { kind: updateKind, ...payload } = u;
        emit("update", {
          kind: updateKind,
          payload,
          ...(c.id ? { call_id: c.id } : {})
        });
      },
      onFinish: (c, message) =>
        emit("tool.finished", {
          call_id: c.id,
          tool: c.tool,
          is_error: message.is_error === true
        })
    };
    let response: T;
    const commits: (() => void)[] = [];
    this.#afterCommit = [];
    try {
      response = await body({
        row,
        env,
        parts: staged.parts,
        hooks,
        emit,
        onCommit: (write) => commits.push(write)
      });
      // A tool may have caught the refusal; the mutation is refused anyway.
      if (staged.meter.exceeded !== undefined) throw staged.meter.exceeded;
      row.lastUsedAt = this.now();
      this.#storage.transactionSync(() => {
        staged.flush();
        for (const write of commits) write();
        if (kind === "reset" && row.episode > 1) {
          dropTreeRowsBefore(this.#sql, row.episode);
        }
        writeEpisode(this.#sql, row);
        if (idem !== undefined) {
          idempotency.record(this.#sql, idem, response, this.now());
          // The earliest record expires first: an existing timer stays right.
          this.#schedule.setIfAbsent(
            "idempotency",
            this.now() + idempotency.IDEMPOTENCY_TTL_MS
          );
        }
        // Only a later reset leaves an old episode to purge. The idle timer
        // is not moved per commit: the alarm re-checks last use when it fires.
        if (kind === "reset" && row.episode > 1) {
          this.#schedule.set("purge", this.now());
        }
        this.#events.trim(
          this.#options.limits.eventsRetained,
          this.#options.limits.eventsRetainedBytes
        );
        writeInflight(this.#sql, null);
      });
    } catch (error) {
      staged.discard();
      this.#storage.transactionSync(() =>
        this.#abandon(inflight, committed.episode)
      );
      throw error;
    }
    this.#row = row;
    const after = this.#afterCommit;
    this.#afterCommit = [];
    for (const fn of after) fn();
    await this.#schedule.arm();
    return response;
  }
}
