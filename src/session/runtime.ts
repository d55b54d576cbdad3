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
import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import type { AssistantMessage } from "../messages/schema";
import type {
  ResetResponse,
  SessionStatus,
  StepResponse,
  ToolInvocationResponse
} from "../protocol";
import { type Limits, LimitsSchema } from "../protocol/limits";
import type { StateDefinition } from "../state/define-state";
import type { TranscriptBackend } from "../state/types";
import type { KeyInfo } from "../store/types";
import type { ExecutionHooks } from "../tools/types";
import {
  committedParts,
  type StorageOptions,
  stagedParts
} from "./episode-storage";
import { EventLog, type StoredEvent } from "./event-log";
import type { IdempotencyKey } from "./idempotency";
import * as idempotency from "./idempotency";
import type { ResolvedOptions } from "./options";
import { MutationQueue } from "./queue";
import { TokenBucket } from "./rate-limit";
import { Schedule } from "./schedule";
import {
  type Inflight,
  insertSessionRow,
  readSessionRow,
  type SessionRow,
  touchSession,
  writeEpisode,
  writeInflight
} from "./session-row";
import { createSessionTables } from "./session-schema";
import { splitResult } from "./split-result";
import { createSchema, purgeEpisodesBefore, schemaVersion } from "./sql-schema";
import { SqliteTranscriptBackend } from "./sqlite-state-backend";
import { SqliteStoreBackend } from "./sqlite-store-backend";

/** What a mutation's body gets and gives back. */
interface MutationContext {
  row: SessionRow;
  env: Environment;
  parts: SessionParts;
  hooks: ExecutionHooks;
  emit(type: string, data: Record<string, unknown>): void;
}

type MutationKind = "reset" | "step" | "call" | "edit";

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
  #bucket: TokenBucket | undefined;

  constructor(
    storage: DurableObjectStorage,
    registry: Registry,
    options: ResolvedOptions
  ) {
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
      createSchema(this.#sql);
      createSessionTables(this.#sql);
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

  /** Deletes every row and the alarm; later requests find no session (404). */
  async destroy(): Promise<void> {
    this.#requireRow();
    await this.#queue.run(async () => {
      await this.#storage.deleteAll();
      this.#row = undefined;
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
          `An action may make at most ${max} tool calls.`
        );
      }
      const step = m.row.steps + 1;
      const out = await runStep(
        m.env,
        m.parts,
        m.row.episodeTask,
        step,
        action,
        {
          hooks: m.hooks,
          defaultTimeoutMs: this.#options.toolTimeoutMs,
          maxContentBytes: this.#options.limits.toolContentBytes
        }
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
          `Environment ${m.env.name} has no tool "${call.tool}".`
        );
      }
      const id = `direct_${this.#events.lastSeq + 1}`;
      const out = await invokeTool(
        m.env,
        m.parts,
        m.row.episodeTask,
        { id, ...call },
        {
          hooks: m.hooks,
          defaultTimeoutMs: this.#options.toolTimeoutMs,
          maxContentBytes: this.#options.limits.toolContentBytes
        }
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
        if (openSockets > 0 || now < idleSince + this.#options.idleTtlMs) {
          // Someone is watching or the session was used since: look again later.
          this.#schedule.set(
            "ttl",
            Math.max(now, idleSince) + this.#options.idleTtlMs
          );
        } else {
          await this.#storage.deleteAll();
          this.#row = undefined;
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

  /** Records use lazily: a write at most every quarter TTL, not one per read. */
  #seen(row: SessionRow): void {
    const now = this.now();
    this.#lastSeen = now;
    if (now - row.lastUsedAt > this.#options.idleTtlMs / 4) {
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
    if ((kind === "call" || kind === "edit") && row.episode === 0) {
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
    try {
      response = await body({ row, env, parts: staged.parts, hooks, emit });
      // A tool may have caught the refusal; the mutation is refused anyway.
      if (staged.meter.exceeded !== undefined) throw staged.meter.exceeded;
      row.lastUsedAt = this.now();
      this.#storage.transactionSync(() => {
        staged.flush();
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
    await this.#schedule.arm();
    return response;
  }
}
