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
  /** Counts changes to the timers, so `arm` can tell that none happened since it last looked. */
  #changes = 0;
  /** `#changes` when `#armed` was last made right. */
  #armedAt = -1;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  /** Sets (or moves) one timer. Synchronous: safe inside transactionSync. */
  set(kind: TimerKind, dueAt: number): void {
    this.#changes++;
    this.#sql.exec(
      "INSERT OR REPLACE INTO schedule (kind, due_at) VALUES (?, ?)",
      kind,
      dueAt
    );
  }

  /** Sets a timer unless one of that kind is already due sooner or later. */
  setIfAbsent(kind: TimerKind, dueAt: number): void {
    this.#changes++;
    this.#sql.exec(
      "INSERT OR IGNORE INTO schedule (kind, due_at) VALUES (?, ?)",
      kind,
      dueAt
    );
  }

  clear(kind: TimerKind): void {
    this.#changes++;
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
  }
}
