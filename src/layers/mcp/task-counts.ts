/**
 * @module The counts a session's task limits check, kept in memory: a
 * count in SQL reads every kept row, which Cloudflare bills per row, on
 * every task started. Read once per object (and again at a limit, before
 * refusing, in case a task ended unseen, e.g. by expiry); kept by the
 * starts and ends this instance makes.
 */

import { RoostError } from "../../errors";
import { taskCensus } from "../../storage/task-rows";

export class TaskCounts {
  readonly #sql: SqlStorage;
  readonly #limits: { working: number; kept: number };
  #working: Set<string> | undefined;
  #kept = 0;

  constructor(sql: SqlStorage, limits: { working: number; kept: number }) {
    this.#sql = sql;
    this.#limits = limits;
  }

  /** Throws when one more task would pass a limit. */
  admit(now: number): void {
    if (this.#working === undefined || this.#atLimit()) this.#load(now);
    const working = this.#working as Set<string>;
    if (working.size >= this.#limits.working) {
      throw new RoostError(
        "conflict",
        `${this.#limits.working} tasks are already waiting or running in this session; wait for one to end or cancel one.`,
        { limit: this.#limits.working }
      );
    }
    if (this.#kept >= this.#limits.kept) {
      throw new RoostError(
        "conflict",
        `This session keeps ${this.#limits.kept} tasks already; they go as their TTLs pass.`,
        { limit: this.#limits.kept }
      );
    }
  }

  started(taskId: string): void {
    this.#working?.add(taskId);
    this.#kept++;
  }

  /** A task this instance saw end (idempotent: a second end counts nothing). */
  ended(taskId: string): void {
    this.#working?.delete(taskId);
  }

  /** Tasks were deleted: count again at the next start. */
  forget(): void {
    this.#working = undefined;
  }

  #atLimit(): boolean {
    return (
      (this.#working?.size ?? 0) >= this.#limits.working ||
      this.#kept >= this.#limits.kept
    );
  }

  #load(now: number): void {
    const census = taskCensus(this.#sql, now);
    this.#working = new Set(census.working);
    this.#kept = census.kept;
  }
}
