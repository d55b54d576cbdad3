/**
 * @module What an MCP client of the handshake era declared at initialize
 * (its capabilities) and set since (logging/setLevel): kept in `meta`, so
 * it outlives the object as the MCP session does, and a session no such
 * client used reads nothing.
 */

import type { JsonObject } from "../json";
import type { LogLevel } from "../store/result";

const KEY = "mcp_client";

export interface McpClientRecord {
  capabilities?: JsonObject;
  log_level?: LogLevel;
  /** Resources it subscribed to (resources/subscribe). */
  subscriptions?: string[];
}

// Without `hasTable`, which reads (and bills) all of sqlite_schema: a
// session without a meta table has nothing kept.
export const readMcpClient = (sql: SqlStorage): McpClientRecord => {
  let rows: { value: string }[];
  try {
    rows = sql
      .exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", KEY)
      .toArray();
  } catch {
    return {};
  }
  const [row] = rows;
  return row === undefined ? {} : (JSON.parse(row.value) as McpClientRecord);
};

/** Merges `changes` into what is kept. */
export const writeMcpClient = (
  sql: SqlStorage,
  changes: McpClientRecord
): void => {
  sql.exec(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    KEY,
    JSON.stringify({ ...readMcpClient(sql), ...changes })
  );
};
