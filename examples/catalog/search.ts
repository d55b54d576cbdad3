/** @module The catalog's two reads, query and aggregate, as SQL built from whitelisted names and bound values. */

import type { JsonObject } from "roost-edge/core";
import { COLLECTIONS, type CollectionName, column } from "./collections";
import type { Sql } from "./load";

export interface Filter {
  field: string;
  op: "eq" | "lt" | "gt";
  value: string | number;
}

export interface QueryRequest {
  collection: CollectionName;
  text?: string | undefined;
  filters: Filter[];
  limit: number;
  /** Who the user is; products for an animal it names rank first. */
  userContext: string;
}

/** A statement as it ran, rows included: what the hidden store keeps. A type, so it is a JSON value. */
export type Ran = {
  statement: string;
  params: (string | number)[];
  rows: JsonObject[];
};

const OPS = { eq: "=", lt: "<", gt: ">" } as const;

/**
 * Rows matching `text` (case-insensitive substring, by `instr` so `%` and
 * `_` are plain characters) and every filter, at most `limit` of them.
 */
export const runQuery = (sql: Sql, request: QueryRequest): Ran => {
  const c = COLLECTIONS[request.collection];
  const where: string[] = [];
  const params: (string | number)[] = [];
  const { text } = request;
  if (text !== undefined) {
    const match = c.text.map((col) => `instr(lower(${col}), lower(?)) > 0`);
    where.push(`(${match.join(" OR ")})`);
    params.push(...c.text.map(() => text));
  }
  for (const f of request.filters) {
    const col = column(
      c.filterable,
      f.field,
      request.collection,
      "filtered by"
    );
    where.push(`${col} ${OPS[f.op]} ?`);
    params.push(f.value);
  }
  let order = "id";
  if (c.contextColumn !== undefined) {
    order = `instr(lower(?), lower(${c.contextColumn})) > 0 DESC, id`;
    params.push(request.userContext);
  }
  params.push(request.limit);
  const statement = `SELECT ${c.columns.join(", ")} FROM ${c.table}${
    where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""
  } ORDER BY ${order} LIMIT ?`;
  return {
    statement,
    params,
    rows: sql.exec<JsonObject>(statement, ...params)
  };
};

export type Metric = "count" | "avg_price" | "avg_rating";

// Keys are the schema's enum; values are the only spellings that reach SQL.
const AVERAGES: Record<
  Exclude<Metric, "count">,
  { column: string; alias: string }
> = {
  avg_price: { column: "price", alias: "avg_price" },
  avg_rating: { column: "rating", alias: "avg_rating" }
};

/** One row per value of `groupBy`, with its count and, for an average, the average (2 decimals). */
export const runAggregate = (
  sql: Sql,
  request: { collection: CollectionName; groupBy: string; metric: Metric }
): Ran => {
  const c = COLLECTIONS[request.collection];
  const group = column(
    c.groupable,
    request.groupBy,
    request.collection,
    "grouped by"
  );
  const measures = ["COUNT(*) AS count"];
  if (request.metric !== "count") {
    const average = AVERAGES[request.metric];
    if (!c.columns.includes(average.column)) {
      throw new Error(
        `${request.metric} needs a ${average.column} column, which ${request.collection} does not have. Use metric "count".`
      );
    }
    measures.push(`ROUND(AVG(${average.column}), 2) AS ${average.alias}`);
  }
  const statement = `SELECT ${group}, ${measures.join(", ")} FROM ${c.table} GROUP BY ${group} ORDER BY ${group}`;
  return { statement, params: [], rows: sql.exec<JsonObject>(statement) };
};
