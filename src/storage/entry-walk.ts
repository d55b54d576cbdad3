/**
 * @module One key's entries read lazily for byte-bounded pages: heads a few
 * at a time by (key_id, ord), objects one row at a time by (entry_id, i),
 * so a reader that stops has read only what it returns.
 */

import { type JsonObject, utf8Length } from "../json";
import type { EntryWalk, SizedObject } from "../store/types";
import { ENTRY_COLUMNS, type EntryRow, entryOf } from "./entry-rows";

/** Entry heads read per statement while walking a key. */
const WALK_CHUNK = 32;
/** An entry's framing on the wire beyond its metadata and objects (field names, tool, name, index). */
const ENTRY_FRAMING = 160;

type HeadRow = EntryRow & { object_count: number; ord: number };

function* objectsOf(
  sql: SqlStorage,
  entryId: number,
  from: number
): Iterable<SizedObject> {
  const rows = sql.exec<{ body: string }>(
    "SELECT body FROM store_objects WHERE entry_id = ? AND i >= ? ORDER BY i",
    entryId,
    from
  );
  for (const { body } of rows) {
    yield {
      object: JSON.parse(body) as JsonObject,
      bytes: utf8Length(body) + 1
    };
  }
}

/** The entries of key `keyId` from position `offset` on. */
export function* walkKey(
  sql: SqlStorage,
  keyId: number,
  offset: number
): Iterable<EntryWalk> {
  let rows = sql
    .exec<HeadRow>(
      `SELECT ${ENTRY_COLUMNS}, object_count, ord FROM store_entries WHERE key_id = ? ORDER BY ord LIMIT ? OFFSET ?`,
      keyId,
      WALK_CHUNK,
      Math.max(0, Math.floor(offset))
    )
    .toArray();
  while (rows.length > 0) {
    for (const row of rows) {
      const { objects: _none, ...head } = entryOf(row, []);
      yield {
        ...head,
        headBytes:
          utf8Length(row.metadata) +
          utf8Length(row.mapping ?? "") +
          utf8Length(row.payload_type ?? "") +
          ENTRY_FRAMING,
        objectCount: row.object_count,
        objects: (from) => objectsOf(sql, row.id, from)
      };
    }
    if (rows.length < WALK_CHUNK) return;
    rows = sql
      .exec<HeadRow>(
        `SELECT ${ENTRY_COLUMNS}, object_count, ord FROM store_entries WHERE key_id = ? AND ord > ? ORDER BY ord LIMIT ?`,
        keyId,
        rows.at(-1)!.ord,
        WALK_CHUNK
      )
      .toArray();
  }
}
