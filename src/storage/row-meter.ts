/**
 * @module What an object's storage bills: rows read and written by its SQL
 * statements (and the row each `setAlarm` is billed as), counted per
 * operation for the bench and the tests. Never installed in normal use.
 */

/** Rows as Cloudflare bills a SQLite-backed Durable Object for them. */
export interface RowCount {
  rowsRead: number;
  rowsWritten: number;
  /** SQL statements run: not billed, but what the rows come from. */
  statements: number;
  /** `setAlarm` calls, each billed as one row written (included in `rowsWritten`). */
  alarmsSet: number;
  /** Cursors that could not be read (opened by another request): their rows are missing. */
  unread: number;
}

export const noRows = (): RowCount => ({
  rowsRead: 0,
  rowsWritten: 0,
  statements: 0,
  alarmsSet: 0,
  unread: 0
});

/**
 * Counts by replacing `exec` and `setAlarm` on this object's own storage:
 * nothing changes for an object that never installs a meter, so metering
 * costs a session nothing while it is off. A cursor counts its rows as it
 * is consumed, so each is kept until `take` reads its counters, after the
 * operations that opened it are done with it.
 */
export class RowMeter {
  readonly #sql: SqlStorage;
  readonly #storage: DurableObjectStorage;
  #open: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  #count = noRows();

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
    const exec = this.#sql.exec;
    const setAlarm = storage.setAlarm;
    // Own properties shadow the prototype's methods; `stop` deletes them.
    Object.assign(this.#sql, {
      exec: (query: string, ...bindings: unknown[]) => {
        const cursor = exec.call(this.#sql, query, ...bindings);
        this.#open.push(cursor);
        return cursor;
      }
    });
    Object.assign(storage, {
      setAlarm: (...args: Parameters<DurableObjectStorage["setAlarm"]>) => {
        this.#count.alarmsSet++;
        this.#count.rowsWritten++;
        return setAlarm.apply(storage, args);
      }
    });
  }

  /** The rows counted since the last `take`, and a fresh start. */
  take(): RowCount {
    const count = this.#count;
    for (const cursor of this.#open) {
      try {
        count.rowsRead += cursor.rowsRead;
        count.rowsWritten += cursor.rowsWritten;
        count.statements++;
      } catch {
        // A cursor of another request (work it left running) is not readable here.
        count.unread++;
      }
    }
    this.#open = [];
    this.#count = noRows();
    return count;
  }

  /** Puts storage back as it was. */
  stop(): void {
    delete (this.#sql as Partial<SqlStorage>).exec;
    delete (this.#storage as Partial<DurableObjectStorage>).setAlarm;
  }
}
