/** @module Loading the bundled JSON into the catalog's own tables in the session's SQLite. */

import type { ToolContext } from "roost-edge/core";
import { COLLECTIONS, type Collection } from "./collections";

export type Sql = NonNullable<ToolContext["sql"]>;

/** SQLite in a Durable Object binds at most 100 parameters per statement. */
const MAX_PARAMS = 100;

const reload = (sql: Sql, c: Collection): void => {
  sql.exec(c.create);
  // Delete then insert: a reset always starts from the shipped rows, even
  // if an earlier episode changed them.
  sql.exec(`DELETE FROM ${c.table}`);
  const perStatement = Math.floor(MAX_PARAMS / c.columns.length);
  const row = `(${c.columns.map(() => "?").join(", ")})`;
  for (let i = 0; i < c.rows.length; i += perStatement) {
    const chunk = c.rows.slice(i, i + perStatement);
    sql.exec(
      `INSERT INTO ${c.table} (${c.columns.join(", ")}) VALUES ${chunk.map(() => row).join(", ")}`,
      ...chunk.flatMap((r) => c.columns.map((col) => r[col]))
    );
  }
};

/**
 * Creates the catalog's tables if needed and fills them with the bundled
 * rows. Synchronous from first statement to last, so no other request to
 * the session sees a half-loaded table.
 */
export const loadCatalog = (sql: Sql): void => {
  for (const c of Object.values(COLLECTIONS)) reload(sql, c);
};
