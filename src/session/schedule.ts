/** @module One alarm, many timers: TTL, purges, expiries live in a table and the alarm follows the earliest. */

export type TimerKind =
  | "ttl"
  | "purge"
  | "idempotency"
  | "events"
  | "run"
  /** A fork's snapshot past its time (fork.ts). */
  | "fork"
  /** A copy half-made and abandoned (fork.ts). */
  | "import";

export class Schedule {
  #sql: SqlStorage;
  #storage: DurableObjectStorage;
  /** The alarm time this instance last set (or read); `undefined` means unknown. */
  #armed: number | null | undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  /** Sets (or moves) one timer. Synchronous: safe inside transactionSync. */
  set(kind: TimerKind, dueAt: number): void {
    this.#sql.exec(
      "INSERT OR REPLACE INTO schedule (kind, due_at) VALUES (?, ?)",
      kind,
      dueAt
    );
  }

  /** Sets a timer unless one of that kind is already due sooner or later. */
  setIfAbsent(kind: TimerKind, dueAt: number): void {
    this.#sql.exec(
      "INSERT OR IGNORE INTO schedule (kind, due_at) VALUES (?, ?)",
      kind,
      dueAt
    );
  }

  clear(kind: TimerKind): void {
    this.#sql.exec("DELETE FROM schedule WHERE kind = ?", kind);
  }

  /** When one timer is due, if it is set. */
  dueAt(kind: TimerKind): number | undefined {
    const [row] = this.#sql
      .exec<{ due_at: number }>(
        "SELECT due_at FROM schedule WHERE kind = ?",
        kind
      )
      .toArray();
    return row?.due_at;
  }

  due(now: number): TimerKind[] {
    return this.#sql
      .exec<{ kind: TimerKind }>(
        "SELECT kind FROM schedule WHERE due_at <= ?",
        now
      )
      .toArray()
      .map((r) => r.kind);
  }

  earliest(): number | undefined {
    const v = this.#sql
      .exec<{ t: number | null }>("SELECT min(due_at) AS t FROM schedule")
      .one().t;
    return v ?? undefined;
  }

  /** Points the alarm at the earliest timer. Not inside transactionSync (setAlarm is storage I/O of its own). */
  async arm(): Promise<void> {
    const next = this.earliest() ?? null;
    // Most commits leave the earliest timer where it was: skip the alarm I/O.
    if (next === this.#armed) return;
    if (next === null) await this.#storage.deleteAlarm();
    else if ((await this.#storage.getAlarm()) !== next) {
      await this.#storage.setAlarm(next);
    }
    this.#armed = next;
  }

  /** Storage was wiped or the alarm ran: the next arm must look again. */
  forget(): void {
    this.#armed = undefined;
  }
}
