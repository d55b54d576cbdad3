/**
 * @module One alarm, many timers: purges and expiries live in a table and
 * the alarm follows the earliest. The idle timer, which every session has,
 * lives in the session's own row (`ttl_due`): a new session then makes no
 * timer table, and the table appears with the first other timer.
 */

import { hasTable } from "../storage/tables";

export type TimerKind =
  | "ttl"
  | "purge"
  | "idempotency"
  | "events"
  | "run"
  /** A fork's snapshot past its time (fork-source.ts). */
  | "fork"
  /** A copy half-made and abandoned (fork-import.ts). */
  | "import"
  /** Tool-call tasks to drive: the lease a running call renews (call-tasks.ts). */
  | "task"
  /** The earliest task past its time to live. */
  | "taskExpiry";

export class Schedule {
  #sql: SqlStorage;
  #storage: DurableObjectStorage;
  /** The alarm time this instance last set (or read); `undefined` means unknown. */
  #armed: number | null | undefined;
  /** Counts changes to the timers, so `arm` can tell that none happened since it last looked. */
  #changes = 0;
  /** `#changes` when `#armed` was last made right. */
  #armedAt = -1;

  /** Whether the timer table exists; undefined until looked up. */
  #table: boolean | undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  /** Sets (or moves) one timer. Synchronous: safe inside transactionSync. */
  set(kind: TimerKind, dueAt: number): void {
    this.#changes++;
    if (kind === "ttl") {
      this.#sql.exec("UPDATE session SET ttl_due = ? WHERE id = 1", dueAt);
      return;
    }
    this.#table = true;
    this.#sql.exec(
      "INSERT OR REPLACE INTO schedule (kind, due_at) VALUES (?, ?)",
      kind,
      dueAt
    );
  }

  /** Sets a timer unless one of that kind is already due sooner or later. */
  setIfAbsent(kind: TimerKind, dueAt: number): void {
    this.#changes++;
    if (kind === "ttl") {
      this.#sql.exec(
        "UPDATE session SET ttl_due = ? WHERE id = 1 AND ttl_due IS NULL",
        dueAt
      );
      return;
    }
    this.#table = true;
    this.#sql.exec(
      "INSERT OR IGNORE INTO schedule (kind, due_at) VALUES (?, ?)",
      kind,
      dueAt
    );
  }

  clear(kind: TimerKind): void {
    this.#changes++;
    if (kind === "ttl")
      this.#sql.exec("UPDATE session SET ttl_due = NULL WHERE id = 1");
    else if (this.#hasTable())
      this.#sql.exec("DELETE FROM schedule WHERE kind = ?", kind);
  }

  /** When one timer is due, if it is set. */
  dueAt(kind: TimerKind): number | undefined {
    if (kind === "ttl") return this.#ttl();
    if (!this.#hasTable()) return undefined;
    const [row] = this.#sql
      .exec<{ due_at: number }>(
        "SELECT due_at FROM schedule WHERE kind = ?",
        kind
      )
      .toArray();
    return row?.due_at;
  }

  due(now: number): TimerKind[] {
    const ttl = this.#ttl();
    const due: TimerKind[] = ttl !== undefined && ttl <= now ? ["ttl"] : [];
    if (!this.#hasTable()) return due;
    return [
      ...due,
      ...this.#sql
        .exec<{ kind: TimerKind }>(
          "SELECT kind FROM schedule WHERE due_at <= ?",
          now
        )
        .toArray()
        .map((r) => r.kind)
    ];
  }

  earliest(): number | undefined {
    const ttl = this.#ttl();
    const other = this.#hasTable()
      ? (this.#sql
          .exec<{ t: number | null }>("SELECT min(due_at) AS t FROM schedule")
          .one().t ?? undefined)
      : undefined;
    if (ttl === undefined) return other;
    return other === undefined ? ttl : Math.min(ttl, other);
  }

  /** The idle timer, from the row (none while a copy is still being imported). */
  #ttl(): number | undefined {
    if (!hasTable(this.#sql, "session")) return undefined;
    const [row] = this.#sql
      .exec<{ t: number | null }>(
        "SELECT ttl_due AS t FROM session WHERE id = 1"
      )
      .toArray();
    return row?.t ?? undefined;
  }

  #hasTable(): boolean {
    this.#table ??= hasTable(this.#sql, "schedule");
    return this.#table;
  }

  /** Points the alarm at the earliest timer. Not inside transactionSync (setAlarm is storage I/O of its own). */
  async arm(): Promise<void> {
    // Most commits touch no timer: then the alarm is already right, and
    // not even the earliest timer needs reading. A rolled-back change
    // still counts, so the next arm looks again.
    const changes = this.#changes;
    if (changes === this.#armedAt && this.#armed !== undefined) return;
    const next = this.earliest() ?? null;
    // Many changes leave the earliest timer where it was: skip the alarm I/O.
    if (next !== this.#armed) {
      if (next === null) await this.#storage.deleteAlarm();
      else if ((await this.#storage.getAlarm()) !== next) {
        await this.#storage.setAlarm(next);
      }
      this.#armed = next;
    }
    this.#armedAt = changes;
  }

  /** Storage was wiped or the alarm ran: the next arm must look again. */
  forget(): void {
    this.#armed = undefined;
    this.#table = undefined;
  }
}
