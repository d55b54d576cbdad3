/** @module Reading whole entries with their objects: a set of entry rows, and the newest entries across keys. */

import { RoostError } from "../errors";
import type { JsonObject } from "../json";
import type { Entry, KeyInfo, LocatedEntry } from "../store/types";
import { ENTRY_COLUMNS, type EntryRow, entryOf } from "./entry-rows";
import { MAX_BOUND_PARAMETERS, placeholders } from "./row-text";

type RecentRow = EntryRow & { key_id: number; ord: number };
type Place = Omit<LocatedEntry, keyof Entry>;

/**
 * Entries with their objects, read by primary key a hundred entries at a
 * time. Plain indexed reads rather than one join: SQLite in a Durable
 * Object counts (and bills) every row a temporary sort or CTE reads again.
 */
export const withObjects = <R extends EntryRow>(
  sql: SqlStorage,
  rows: R[]
): { row: R; entry: Entry }[] => {
  const objects = new Map(rows.map((r): [number, JsonObject[]] => [r.id, []]));
  const ids = [...objects.keys()];
  for (let at = 0; at < ids.length; at += MAX_BOUND_PARAMETERS) {
    const chunk = ids.slice(at, at + MAX_BOUND_PARAMETERS);
    const found = sql.exec<{ entry_id: number; body: string }>(
      `SELECT entry_id, body FROM store_objects WHERE entry_id IN (${placeholders(chunk.length)}) ORDER BY entry_id, i`,
      ...chunk
    );
    for (const { entry_id, body } of found) {
      objects.get(entry_id)?.push(JSON.parse(body) as JsonObject);
    }
  }
  return rows.map((row) => ({
    row,
    entry: entryOf(row, objects.get(row.id) ?? [])
  }));
};

/**
 * The episode's `limit` newest entries, newest first. Positions are counted
 * from the end of each list: recent entries sit near the end, so each
 * key's tail is read once, from its oldest picked entry.
 */
export const recentEntries = (
  sql: SqlStorage,
  episode: number,
  limit: number
): LocatedEntry[] => {
  if (limit === 0) return [];
  const rows = sql
    .exec<RecentRow>(
      `SELECT ${ENTRY_COLUMNS}, key_id, ord FROM store_entries WHERE episode = ? ORDER BY written DESC LIMIT ?`,
      episode,
      limit
    )
    .toArray();
  const oldest = new Map<number, number>();
  const wanted = new Set<string>();
  for (const { key_id, ord } of rows) {
    oldest.set(key_id, Math.min(ord, oldest.get(key_id) ?? ord));
    wanted.add(`${key_id}:${ord}`);
  }
  const places = new Map<string, Place>();
  for (const [keyId, lo] of oldest) {
    const { tool, name, entries } = sql
      .exec<KeyInfo & Record<string, SqlStorageValue>>(
        "SELECT tool, name, entries, objects FROM store_keys WHERE id = ?",
        keyId
      )
      .one();
    const tail = sql.exec<{ ord: number }>(
      "SELECT ord FROM store_entries WHERE key_id = ? AND ord >= ? ORDER BY ord DESC",
      keyId,
      lo
    );
    let index = entries;
    for (const { ord } of tail) {
      index--;
      const at = `${keyId}:${ord}`;
      if (wanted.has(at)) places.set(at, { tool, name, index });
    }
  }
  return withObjects(sql, rows).map(({ row, entry }) => {
    const place = places.get(`${row.key_id}:${row.ord}`);
    if (place === undefined) throw new RoostError("internal", "Lost entry.");
    return { ...place, ...entry };
  });
};
