/**
 * @module Tool calls run as tasks (MCP's tasks): a row when one starts, the
 * call driven through the mutation queue like any direct call, its outcome
 * in the call's own commit. An alarm is the lease while calls are pending:
 * if the object dies mid-call, the next instance runs it again, and since
 * the aborted attempt committed nothing, the session sees it once.
 */

import {
  requireEpisode,
  requireOffered
} from "../../environment/episode-machine";
import { RoostError, toErrorBody } from "../../errors";
import type { JsonObject } from "../../json";
import type { CallTaskStatus } from "../../protocol";
import type { Committer } from "../../session/commit";
import { directCall } from "../../session/direct-call";
import type { SessionRuntime } from "../../session/runtime";
import type { SessionShared } from "../../session/shared";
import { Waiters } from "../../session/waiters";
import {
  cancelTask,
  countRedrive,
  endTask,
  expireTasks,
  insertTask,
  listTasks,
  nextTaskExpiry,
  nextWorking,
  readTask,
  type TaskRow,
  writeTaskInput
} from "../../storage/task-rows";
import { InputRequired } from "../../tools/ask";
import { replayedClient } from "./client-asks";
import { TaskCounts } from "./task-counts";
import {
  afterCursor,
  clampTtl,
  firstInput,
  inputOf,
  isTerminal,
  newTaskId,
  toStatus,
  withAnswers
} from "./task-status";

/**
 * How long the alarm waits before it takes up a pending call whose
 * instance it cannot see working. Renewed while calls run, so a long call
 * costs one timer write per half lease; a client's poll wakes a dead
 * object sooner (`wait`, which tasks/get and tasks/result call).
 */
const LEASE_MS = 30_000;
/**
 * Times a call is taken up again after its object died with it: a call
 * that kills its object every time (memory, CPU) must end, as failed.
 */
const MAX_REDRIVES = 2;
/** Calls waiting or running at once: they run one at a time anyway. */
const MAX_WORKING = 16;
/** Tasks kept at once (each until its TTL). */
const MAX_KEPT = 1_000;
/** Wall time one drive spends before it hands over to the next alarm (an alarm may run 15 minutes). */
const DRIVE_BUDGET_MS = 5 * 60_000;
export const TASK_PAGE = 100;

export class CallTasks {
  readonly #shared: SessionShared;
  readonly #commits: Committer;
  /** Callers of `wait`, woken when their task ends. */
  readonly #waiters = new Waiters();
  #driving = false;
  /**
   * Tasks this instance started, or already counted as taken up again: a
   * working task outside it was left by an instance that died.
   */
  readonly #mine = new Set<string>();
  #count = 0;
  readonly #counts: TaskCounts;

  constructor(shared: SessionShared, commits: Committer) {
    this.#shared = shared;
    this.#commits = commits;
    this.#counts = new TaskCounts(shared.sql, {
      working: MAX_WORKING,
      kept: MAX_KEPT
    });
  }

  /** Whether a drive is under way in this instance (the alarm then only renews the lease). */
  get driving(): boolean {
    return this.#driving;
  }

  /**
   * Records a task and starts its call. What would refuse the call at once
   * (no episode, a tool not offered, the rate limit) refuses the task, so
   * a client hears of it now; the arguments are checked by the call.
   */
  async start(input: {
    tool: string;
    arguments: JsonObject;
    ttl_ms?: number | undefined;
    capabilities?: JsonObject | undefined;
    answers?: Record<string, JsonObject> | undefined;
  }): Promise<CallTaskStatus> {
    const shared = this.#shared;
    const row = shared.requireRow();
    requireEpisode(row, "episode");
    requireOffered(shared.registry.get(row.environment), row, input.tool);
    this.#commits.throttle();
    const now = shared.now();
    this.#counts.admit(now);
    const task: TaskRow = {
      taskId: newTaskId(now, this.#count++),
      tool: input.tool,
      arguments: input.arguments,
      status: "working",
      redrives: 0,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + clampTtl(input.ttl_ms),
      ...firstInput(input.capabilities, input.answers)
    };
    shared.storage.transactionSync(() => {
      insertTask(shared.sql, task);
      shared.schedule.setIfAbsent("task", now + LEASE_MS);
      const expiry = shared.schedule.dueAt("taskExpiry");
      if (expiry === undefined || expiry > task.expiresAt)
        shared.schedule.set("taskExpiry", task.expiresAt);
    });
    this.#mine.add(task.taskId);
    this.#counts.started(task.taskId);
    await shared.schedule.arm();
    // Not awaited: the task answers at once. Should the object die, the
    // lease's alarm drives it again.
    this.drive().catch((error) => console.error("Roost: a task drive", error));
    return toStatus(task, false);
  }

  read(taskId: string): CallTaskStatus {
    return toStatus(this.#require(taskId), true);
  }

  /** The task once it ended, or after `ms`, whichever is first. */
  async wait(taskId: string, ms: number): Promise<CallTaskStatus> {
    const task = this.#require(taskId);
    // Working, yet not this instance's: the one that ran it died. Its
    // client's poll takes it up at once rather than when the lease runs
    // out (waking costs nothing extra this way: only a poll looks).
    if (task.status === "working" && !this.#mine.has(taskId))
      this.drive().catch((e) => console.error("Roost: a task drive", e));
    if (ms <= 0 || isTerminal(task)) return toStatus(task, true);
    await this.#waiters.wait(taskId, ms);
    return this.read(taskId);
  }

  /** A page of kept tasks, oldest first, without their outcomes. */
  list(cursor?: string): { tasks: CallTaskStatus[]; next_cursor?: string } {
    const shared = this.#shared;
    shared.seen(shared.requireRow());
    const after = cursor === undefined ? undefined : afterCursor(cursor);
    const rows = listTasks(shared.sql, shared.now(), TASK_PAGE + 1, after);
    const page = rows.slice(0, TASK_PAGE);
    const last = page.at(-1);
    return {
      tasks: page.map((t) => toStatus(t, false)),
      ...(rows.length > TASK_PAGE && last !== undefined
        ? { next_cursor: `${last.createdAt}:${last.taskId}` }
        : {})
    };
  }

  /**
   * Cancels a task that has not ended: sticky, whatever its call does
   * next. A call already running is not interrupted (a tool's writes are
   * all or nothing, and half a call is never committed): it finishes and
   * commits, and its task stays cancelled. One still waiting never runs.
   */
  cancel(taskId: string): CallTaskStatus {
    const shared = this.#shared;
    const task = this.#require(taskId);
    if (isTerminal(task)) {
      throw new RoostError(
        "conflict",
        `Task "${taskId}" already ended (${task.status}); only a working task can be cancelled.`,
        { task_id: taskId, status: task.status }
      );
    }
    shared.storage.transactionSync(() =>
      cancelTask(shared.sql, taskId, shared.now())
    );
    this.#wake(taskId);
    return this.read(taskId);
  }

  /**
   * The client's answers to what a task's call asked: kept; once nothing
   * asked is left unanswered, the call runs again from its start with
   * them. Answers to what it did not ask are ignored. Written before the
   * caller is answered, so its next read sees them.
   */
  async answer(
    taskId: string,
    responses: Record<string, JsonObject>
  ): Promise<CallTaskStatus> {
    const shared = this.#shared;
    const task = this.#require(taskId);
    const input = inputOf(task);
    if (task.status !== "input_required" || input === undefined)
      return toStatus(task, true);
    const { status, next } = withAnswers(input, responses);
    shared.storage.transactionSync(() =>
      writeTaskInput(shared.sql, taskId, status, next, shared.now())
    );
    if (status === "working") {
      this.#mine.add(taskId);
      this.#counts.started(taskId);
      this.drive().catch((e) => console.error("Roost: a task drive", e));
    }
    return this.read(taskId);
  }

  /**
   * Runs pending calls one by one until none is left (or the budget is
   * spent: the lease's alarm goes on). Called by `start` and the alarm.
   */
  async drive(): Promise<void> {
    if (this.#driving) return;
    this.#driving = true;
    const shared = this.#shared;
    const began = shared.now();
    // Each task once per drive: one whose end could not be written must not spin.
    const tried = new Set<string>();
    try {
      for (;;) {
        if (shared.loadRow() === undefined) return;
        const now = shared.now();
        if (now - began > DRIVE_BUDGET_MS) return;
        const task = nextWorking(shared.sql, now, tried);
        if (task === undefined) {
          // Idle. A lease still ahead is left for its alarm to clear: the
          // next task then finds it set, and a burst of quick tasks writes
          // it once, not twice each (rows are billed; an alarm is a cheap
          // request). One that is due (this is its alarm) is cleared.
          const lease = shared.schedule.dueAt("task");
          if (
            lease !== undefined &&
            lease <= now &&
            nextWorking(shared.sql, now, new Set()) === undefined
          )
            shared.schedule.clear("task");
          await shared.schedule.arm();
          return;
        }
        tried.add(task.taskId);
        if (!this.#mine.has(task.taskId)) {
          this.#mine.add(task.taskId);
          if (task.redrives >= MAX_REDRIVES) {
            this.#fail(task.taskId, {
              code: "internal",
              message: `The session's object stopped during this call ${task.redrives + 1} times; it is not run again.`
            });
            continue;
          }
          shared.storage.transactionSync(() =>
            countRedrive(shared.sql, task.taskId)
          );
        }
        // Renewed only when it comes near, as a run's resume timer is.
        const lease = shared.schedule.dueAt("task");
        if (lease === undefined || lease < now + LEASE_MS / 2) {
          shared.schedule.set("task", now + LEASE_MS);
          await shared.schedule.arm();
        }
        await this.#run(task);
      }
    } finally {
      this.#driving = false;
    }
  }

  /** While a drive runs, the lease's alarm only moves the lease on. */
  renewLease(now: number): void {
    this.#shared.schedule.set("task", now + LEASE_MS);
  }

  /** Deletes tasks past their TTL and points the timer at the next. */
  expire(now: number): void {
    const shared = this.#shared;
    expireTasks(shared.sql, now);
    this.#counts.forget();
    const next = nextTaskExpiry(shared.sql);
    if (next === undefined) shared.schedule.clear("taskExpiry");
    else shared.schedule.set("taskExpiry", next);
  }

  async #run(task: TaskRow): Promise<void> {
    const shared = this.#shared;
    try {
      await shared.queue.run(async () => {
        // Cancelled, ended or expired while it waited: it never runs.
        const latest = readTask(shared.sql, task.taskId, shared.now());
        if (latest === undefined || isTerminal(latest)) return;
        const input = inputOf(latest);
        await this.#commits.commit("call", undefined, (m) =>
          directCall(
            shared,
            m,
            { tool: task.tool, arguments: task.arguments as JsonObject },
            (out) =>
              m.onCommit(() =>
                endTask(
                  shared.sql,
                  task.taskId,
                  // A tool's own error is a result the model reads, as in a
                  // plain tools/call: the task completed. (The official
                  // client drops a failed task's result.) Failed is for
                  // refusals, which have no result.
                  "completed",
                  { result: out },
                  shared.now()
                )
              ),
            input === undefined
              ? undefined
              : replayedClient(
                  input.capabilities as JsonObject,
                  input.answers as Record<string, JsonObject>
                )
          )
        );
      });
    } catch (error) {
      // It asks what its client has not answered yet: nothing it did is
      // kept, and it waits (tasks/update runs it again).
      const input = inputOf(task);
      if (error instanceof InputRequired && input !== undefined) {
        shared.storage.transactionSync(() =>
          writeTaskInput(
            shared.sql,
            task.taskId,
            "input_required",
            { input: { ...input, asked: error.requests } },
            shared.now()
          )
        );
        this.#wake(task.taskId);
        return;
      }
      if (!(error instanceof RoostError))
        console.error("Roost: a task's call failed", error);
      // A session deleted under its task has nothing left to write to.
      if (shared.loadRow() !== undefined)
        this.#fail(task.taskId, toErrorBody(error));
    }
    this.#wake(task.taskId);
  }

  #fail(taskId: string, error: ReturnType<typeof toErrorBody>): void {
    const shared = this.#shared;
    shared.storage.transactionSync(() =>
      endTask(shared.sql, taskId, "failed", { error }, shared.now())
    );
    this.#wake(taskId);
  }

  #require(taskId: string): TaskRow {
    const shared = this.#shared;
    shared.seen(shared.requireRow());
    const task = readTask(shared.sql, taskId, shared.now());
    if (task === undefined) {
      throw new RoostError(
        "not_found",
        `No task "${taskId}" in this session (it may have expired).`,
        { task_id: taskId }
      );
    }
    return task;
  }

  /** Called once a task ended (or vanished): its readers, and the count. */
  #wake(taskId: string): void {
    this.#counts.ended(taskId);
    this.#waiters.wake(taskId);
  }
}

const TASKS = new WeakMap<SessionRuntime, CallTasks>();

/** The session's tool-call tasks, made on first use: a session of a worker without MCP never makes them. */
export const tasksOf = (runtime: SessionRuntime): CallTasks => {
  let tasks = TASKS.get(runtime);
  if (tasks === undefined) {
    tasks = new CallTasks(runtime.shared, runtime.commits);
    TASKS.set(runtime, tasks);
  }
  return tasks;
};
