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
}

export const noRows = (): RowCount => ({
  rowsRead: 0,
  rowsWritten: 0,
  statements: 0,
  alarmsSet: 0
});

type Cursor = SqlStorageCursor<Record<string, SqlStorageValue>>;

/** The cursor methods that step it: its counters are read again after each. */
const STEPPING = new Set<PropertyKey>(["next", "toArray", "one", "raw"]);

/**
 * Counts by replacing `exec` and `setAlarm` on this object's own storage:
 * nothing changes for an object that never installs a meter, so metering
 * costs a session nothing while it is off. A cursor counts its rows as it
 * is consumed, and may be consumed by work that outlives the request that
 * opened it; its counters are read by whoever steps it, right after each
 * step, so no cursor is kept and none is read from another request.
 */
export class RowMeter {
  readonly #sql: SqlStorage;
  readonly #storage: DurableObjectStorage;
  #count = noRows();
  #ownExec: PropertyDescriptor | undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
    const exec = this.#sql.exec;
    const setAlarm = storage.setAlarm;
    // Whatever own `exec` was installed before (tables.ts) comes back on stop.
    this.#ownExec = Object.getOwnPropertyDescriptor(this.#sql, "exec");
    // Own properties shadow the prototype's methods; `stop` deletes them.
    Object.assign(this.#sql, {
      exec: (query: string, ...bindings: unknown[]) =>
        this.#watch(exec.call(this.#sql, query, ...bindings) as Cursor)
    });
    Object.assign(storage, {
      setAlarm: (...args: Parameters<DurableObjectStorage["setAlarm"]>) => {
        this.#count.alarmsSet++;
        this.#count.rowsWritten++;
        return setAlarm.apply(storage, args);
      }
    });
  }

  /** The cursor, counted at once (exec ran its first step) and after every later step. */
  #watch(cursor: Cursor): Cursor {
    let read = 0;
    let written = 0;
    const settle = () => {
      this.#count.rowsRead += cursor.rowsRead - read;
      this.#count.rowsWritten += cursor.rowsWritten - written;
      read = cursor.rowsRead;
      written = cursor.rowsWritten;
    };
    this.#count.statements++;
    settle();
    const stepping =
      <A extends unknown[], R>(fn: (...args: A) => R) =>
      (...args: A): R => {
        try {
          return fn(...args);
        } finally {
          settle();
        }
      };
    return new Proxy(cursor, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== "function") return value;
        const bound = (value as (...a: unknown[]) => unknown).bind(target);
        if (STEPPING.has(key)) return stepping(bound);
        if (key !== Symbol.iterator) return bound;
        // `for … of` steps through the iterator, not the cursor's own `next`.
        return () => {
          const iterator = bound() as Iterator<unknown>;
          return {
            next: stepping(() => iterator.next()),
            [Symbol.iterator]() {
              return this;
            }
          };
        };
      }
    });
  }

  /** The rows counted since the last `take`, and a fresh start. */
  take(): RowCount {
    const count = this.#count;
    this.#count = noRows();
    return count;
  }

  /** Puts storage back as it was. */
  stop(): void {
    delete (this.#sql as Partial<SqlStorage>).exec;
    if (this.#ownExec !== undefined)
      Object.defineProperty(this.#sql, "exec", this.#ownExec);
    delete (this.#storage as Partial<DurableObjectStorage>).setAlarm;
  }
}
