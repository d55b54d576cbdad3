/**
 * @module Decision-tree runs: queued by a request, driven pass by pass from
 * the alarm (each pass one commit), cancelled by a flag the loop reads
 * between passes, and waited on by readers until they end.
 */

import { episodeEnvironment } from "../environment/episode-tools";
import { type ErrorBody, RoostError, toErrorBody } from "../errors";
import type { JsonObject } from "../json";
import type { RunState, RunStatus } from "../protocol";
import { runPass } from "../runner/loop";
import { ModelError } from "../runner/model-error";
import type { IdempotencyKey } from "../storage/idempotency";
import * as idempotency from "../storage/idempotency";
import {
  activeRun,
  type RunRow,
  readRun,
  readTreeRows,
  requestCancel,
  runStatus,
  writeRun,
  writeTreeRows
} from "../storage/run-rows";
import { addToHistory } from "../tree/tree-data";
import type { Committer, MutationContext } from "./commit";
import type { ModelResolver } from "./models";
import type { SessionShared } from "./shared";
import { Waiters } from "./waiters";

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

export class TreeRuns {
  readonly #shared: SessionShared;
  readonly #commits: Committer;
  readonly #models: ModelResolver;
  /** Callers of `wait`, woken when their run finishes. */
  readonly #waiters = new Waiters();
  #driving = false;

  constructor(
    shared: SessionShared,
    commits: Committer,
    models: ModelResolver
  ) {
    this.#shared = shared;
    this.#commits = commits;
    this.#models = models;
  }

  /**
   * Queues a run: 202 at once; passes run from the alarm, each committed
   * alone. A chat's run keeps the chat's id, so a reconnect finds it.
   */
  start(
    request: { prompt: string; model?: string; chatId?: string },
    idem?: IdempotencyKey
  ): Promise<{ run_id: string }> {
    const shared = this.#shared;
    // Answered at once: inside the queue this would wait for the running pass.
    if (
      idem === undefined ||
      idempotency.lookup(shared.sql, idem, shared.now()) === undefined
    ) {
      this.#refuseWhileRunning();
    }
    return this.#commits.mutate("run", idem, async (m) => {
      if (m.environment.tree === undefined) {
        throw new RoostError(
          "invalid_request",
          `Environment ${m.environment.name} defines no decision tree; runs need one.`
        );
      }
      this.#refuseWhileRunning();
      const { name } = this.#models(request.model, m.environment);
      const now = shared.now();
      // Every event of the run comes after this: its stream replays from here.
      const firstSeq = shared.events.lastAssigned + 1;
      const run: RunRow = {
        runId: crypto.randomUUID(),
        episode: m.row.episode,
        prompt: request.prompt,
        model: name,
        state: "running",
        passes: 0,
        decisions: 0,
        cancelRequested: false,
        ...(request.chatId === undefined ? {} : { chatId: request.chatId }),
        firstSeq,
        createdAt: now,
        updatedAt: now
      };
      m.parts.state.set("messages", { role: "user", content: request.prompt });
      const rows = readTreeRows(shared.sql, run.episode);
      m.onCommit(() => {
        writeRun(shared.sql, run);
        writeTreeRows(shared.sql, run.episode, {
          ...rows,
          history: addToHistory(rows.history, "user", request.prompt)
        });
        shared.schedule.set("run", now);
      });
      return { run_id: run.runId };
    });
  }

  read(runId: string): RunStatus {
    const shared = this.#shared;
    shared.seen(shared.requireRow());
    const run = readRun(shared.sql, runId);
    if (run === undefined) {
      throw new RoostError("not_found", `No run "${runId}" in this session.`, {
        run_id: runId
      });
    }
    return runStatus(run, readTreeRows(shared.sql, run.episode));
  }

  /** The run's status once it finished, or after `ms`, whichever is first. */
  async wait(runId: string, ms: number): Promise<RunStatus> {
    const status = this.read(runId);
    if (ms <= 0 || !isActive(status.state)) return status;
    await this.#waiters.wait(runId, ms);
    return this.read(runId);
  }

  /** Bypasses the queue: a flag the loop reads between passes. */
  cancel(runId: string): RunStatus {
    this.read(runId);
    requestCancel(this.#shared.sql, runId);
    return this.read(runId);
  }

  /** A reset ends the episode's run with it, in the reset's own commit. */
  cancelActiveOnCommit(m: MutationContext, why: string): void {
    const shared = this.#shared;
    const run = activeRun(shared.sql);
    if (run === undefined) return;
    m.emit("tree.completed", {
      run_id: run.runId,
      payload: { state: "cancelled", reason: why }
    });
    m.onCommit(() => {
      writeRun(shared.sql, {
        ...run,
        state: "cancelled",
        updatedAt: shared.now()
      });
    });
    m.afterCommit(() => this.#wake(run.runId));
  }

  /**
   * Runs passes until no run is active. Called from the alarm; before each
   * pass the alarm is set a little ahead, so a pass that dies with its object
   * is picked up again by the next instance.
   */
  async drive(): Promise<void> {
    if (this.#driving) return;
    this.#driving = true;
    const shared = this.#shared;
    const began = shared.now();
    try {
      for (;;) {
        // The "run" timer is still set: the next alarm picks the run up.
        if (shared.now() - began > RUN_DRIVE_BUDGET_MS) return;
        const run = activeRun(shared.sql);
        if (run === undefined || run.episode !== shared.requireRow().episode) {
          shared.schedule.clear("run");
          return;
        }
        if (run.cancelRequested) {
          await this.#finish(run.runId, { state: "cancelled" });
          continue;
        }
        // Moved only when it comes near: a pass that dies with its object
        // is still picked up within RUN_RESUME_MS, and quick passes do not
        // each pay a timer write and an alarm write.
        const resumeAt = shared.schedule.dueAt("run");
        if (
          resumeAt === undefined ||
          resumeAt < shared.now() + RUN_RESUME_MS / 2
        ) {
          shared.schedule.set("run", shared.now() + RUN_RESUME_MS);
          await shared.schedule.arm();
        }
        try {
          await shared.queue.run(async () => {
            // A reset or cancel may have come first while this waited.
            const latest = readRun(shared.sql, run.runId);
            if (
              latest === undefined ||
              !isActive(latest.state) ||
              latest.cancelRequested
            ) {
              return;
            }
            await this.#commits.commit("pass", undefined, (m) =>
              this.#pass(m, latest)
            );
          });
        } catch (error) {
          await this.#finish(run.runId, {
            state: "failed",
            error: runError(error)
          });
        }
      }
    } finally {
      this.#driving = false;
    }
  }

  /**
   * A run that ends outside a pass (cancelled between passes, or failed),
   * if it is still going. In the queue: its event must not land among the
   * held events of a mutation in flight, whose abort would cover it.
   */
  async #finish(
    runId: string,
    end: { state: "cancelled" | "failed"; error?: ErrorBody }
  ): Promise<void> {
    const shared = this.#shared;
    await shared.queue.run(async () => {
      const latest = readRun(shared.sql, runId);
      if (latest !== undefined && isActive(latest.state))
        this.#end(latest, end);
    });
  }

  #end(
    run: RunRow,
    end: { state: "cancelled" | "failed"; error?: ErrorBody }
  ): void {
    const shared = this.#shared;
    const episode = shared.requireRow().episode;
    shared.storage.transactionSync(() => {
      writeRun(shared.sql, {
        ...run,
        state: end.state,
        ...(end.error ? { error: end.error } : {}),
        updatedAt: shared.now()
      });
      shared.emit(episode, "tree.completed", {
        run_id: run.runId,
        payload: end.error
          ? { state: end.state, error: { ...end.error } as JsonObject }
          : { state: end.state }
      });
    });
    this.#wake(run.runId);
  }

  async #pass(m: MutationContext, run: RunRow): Promise<void> {
    const shared = this.#shared;
    const tree = m.environment.tree;
    if (tree === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${m.environment.name} no longer defines a decision tree.`
      );
    }
    const { model } = this.#models(run.model, m.environment);
    const rows = readTreeRows(shared.sql, run.episode);
    const result = await runPass({
      // Tools the episode's reset left out are never offered.
      env: episodeEnvironment(m.environment, m.row.episodeTools),
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
        errors: rows.errors,
        history: rows.history
      },
      emit: m.emit,
      execute: shared.executeOptions(m.hooks)
    });
    const p = result.progress;
    const next: RunRow = {
      ...run,
      passes: p.passes,
      decisions: p.decisions,
      updatedAt: shared.now(),
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
      m.afterCommit(() => this.#wake(run.runId));
    }
    m.onCommit(() => {
      writeRun(shared.sql, next);
      writeTreeRows(shared.sql, run.episode, {
        tasks: p.tasks,
        errors: p.errors,
        history: p.history
      });
    });
  }

  #refuseWhileRunning(): void {
    const running = activeRun(this.#shared.sql);
    if (running !== undefined) {
      throw new RoostError(
        "conflict",
        `Run ${running.runId} is still going; wait for it or cancel it first.`,
        { run_id: running.runId }
      );
    }
  }

  #wake(runId: string): void {
    this.#waiters.wake(runId);
  }
}
