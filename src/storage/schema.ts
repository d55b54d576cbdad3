/** @module A session's schema version: checked, recorded, and migrated to this code's (migrations.ts). */

import { RoostError } from "../errors";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations";
import { hasTable } from "./tables";

export {
  MIGRATED_TABLE_NAMES,
  migrationOf,
  SCHEMA_VERSION
} from "./migrations";

/**
 * The recorded schema version, or undefined when there is no session.
 * Versions before tables on first use kept it in `meta`; later sessions
 * keep it in their row (a copy being imported, which has no row yet, in
 * `meta` too). Reads `sqlite_schema` first, so probing makes nothing.
 */
export const schemaVersion = (sql: SqlStorage): number | undefined => {
  const present = new Set(
    sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'session')"
      )
      .toArray()
      .map((r) => r.name)
  );
  if (present.has("meta")) {
    const [row] = sql
      .exec<{ value: string | null }>(
        "SELECT value FROM meta WHERE key = 'schema_version'"
      )
      .toArray();
    if (row?.value != null) return Number(row.value);
  }
  if (!present.has("session")) return undefined;
  const [row] = sql
    .exec<{ v: number | null }>(
      "SELECT schema_version AS v FROM session WHERE id = 1"
    )
    .toArray();
  return row?.v ?? undefined;
};

/** Records the version where this session keeps it (see `schemaVersion`). */
const recordVersion = (sql: SqlStorage): void => {
  const inMeta = sql
    .exec("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'")
    .toArray().length;
  if (inMeta)
    sql.exec(
      "UPDATE meta SET value = ? WHERE key = 'schema_version'",
      String(SCHEMA_VERSION)
    );
  sql.exec(
    "UPDATE session SET schema_version = ? WHERE id = 1 AND schema_version IS NOT NULL",
    SCHEMA_VERSION
  );
};

/** Marks a copy being imported (it has no row yet) as written by this version. */
export const recordImportVersion = (sql: SqlStorage): void => {
  sql.exec(
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    String(SCHEMA_VERSION)
  );
};

/** The table a statement changes, for those that need it to exist. */
const CHANGED =
  /^(?:ALTER TABLE|UPDATE|DELETE FROM|CREATE (?:UNIQUE )?INDEX IF NOT EXISTS \w+\s+ON) (\w+)/;

/**
 * Whether `statement` changes a table this session never made: it will be
 * made on first use in its current layout, which already has the change.
 */
const targetMissing = (sql: SqlStorage, statement: string): boolean => {
  const table = CHANGED.exec(statement)?.[1];
  return table !== undefined && !hasTable(sql, table);
};

/**
 * Whether `statement` adds a column that is already there: ALTER TABLE has
 * no IF NOT EXISTS, and every migration must be safe to run again (a
 * table created by newer code already has the column).
 */
const columnExists = (sql: SqlStorage, statement: string): boolean => {
  const alter = /^ALTER TABLE (\w+) ADD COLUMN (\w+)/.exec(statement);
  if (alter === null) return false;
  return (
    sql
      .exec(
        "SELECT 1 FROM pragma_table_info(?) WHERE name = ?",
        alter[1]!,
        alter[2]!
      )
      .toArray().length > 0
  );
};

/**
 * Whether `statement` copies rows from a table that is not there (a
 * migration moving rows to a new table runs again after the old one went).
 */
const sourceMissing = (sql: SqlStorage, statement: string): boolean => {
  const copy = /^INSERT INTO \w+ [^;]*\bFROM (\w+)\s*$/.exec(statement);
  return copy !== null && !hasTable(sql, copy[1]!);
};

/**
 * Brings an existing session's tables to SCHEMA_VERSION, and costs a few
 * reads when they are current; a new session needs nothing (its tables
 * are made on first use, tables.ts). Call it inside a transaction, so a
 * migration applies whole or not at all.
 *
 * @example
 * ctx.storage.transactionSync(() => migrate(ctx.storage.sql));
 */
export const migrate = (sql: SqlStorage): void => {
  const found = schemaVersion(sql);
  if (found === undefined || found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) {
    // Older code writing into a newer layout could corrupt it; refuse instead.
    throw new RoostError(
      "internal",
      `Session storage has schema version ${found}, newer than this code's ${SCHEMA_VERSION}. Deploy the newer version.`,
      { found, supported: SCHEMA_VERSION }
    );
  }
  for (const statements of MIGRATIONS.slice(found))
    for (const statement of statements)
      if (
        !columnExists(sql, statement) &&
        !sourceMissing(sql, statement) &&
        !targetMissing(sql, statement)
      )
        sql.exec(statement);
  recordVersion(sql);
};
