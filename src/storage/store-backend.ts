/** @module The environment store's SQLite backend: one row per key, per entry and per object, read lazily. */

import { RoostError } from "../errors";
import type { JsonObject } from "../json";
import { fingerprint } from "../store/fingerprint";
import type {
  Entry,
  EntryWalk,
  KeyInfo,
  LocatedEntry,
  ObjectFingerprint,
  StoreBackend
} from "../store/types";
import { recentEntries, withObjects } from "./entry-reads";
import {
  ENTRY_COLUMNS,
  type EntryRow,
  type ObjectRow,
  prepareEntry
} from "./entry-rows";
import { walkKey } from "./entry-walk";
import { MAX_BOUND_PARAMETERS, placeholders } from "./row-text";

type KeyRow = { id: number; entries: number; objects: number };
type KeyInfoRow = KeyInfo & Record<string, SqlStorageValue>;
type PlacedRow = EntryRow & { object_count: number };

const OBJECT_COLUMNS = 7;
const OBJECTS_PER_INSERT = Math.floor(MAX_BOUND_PARAMETERS / OBJECT_COLUMNS);

const notFound = (tool: string, name: string): RoostError =>
  new RoostError("not_found", `No results under ${tool}/${name}.`);

// Both run inside the statement that writes the entry: nothing to get out of step.
const NEXT_ORD =
  "SELECT coalesce(max(ord), -1) + 1 FROM store_entries WHERE key_id = ?2";
const NEXT_WRITTEN =
  "SELECT coalesce(max(written), 0) + 1 FROM store_entries WHERE episode = ?1";

/** SQLite wants an integer LIMIT; -1 means none. */
const sqlLimit = (limit: number): number =>
  Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : -1;

/**
 * A StoreBackend on the session's SQLite. Construction reads nothing and
 * every method is a few indexed statements, so waking a session with a
 * large store costs nothing until something is asked for. Counts live on
 * the key row. Nothing is cached between calls: a rolled-back transaction
 * can leave no stale copy behind.
 */
export class SqliteStoreBackend implements StoreBackend {
  readonly #sql: SqlStorage;
  readonly #episode: number;

  constructor(sql: SqlStorage, episode: number) {
    this.#sql = sql;
    this.#episode = episode;
  }

  #all<T extends Record<string, SqlStorageValue>>(
    query: string,
    ...params: SqlStorageValue[]
  ): T[] {
    return this.#sql.exec<T>(query, ...params).toArray();
  }

  #find(tool: string, name: string): KeyRow | undefined {
    return this.#all<KeyRow>(
      "SELECT id, entries, objects FROM store_keys WHERE episode = ? AND tool = ? AND name = ?",
      this.#episode,
      tool,
      name
    )[0];
  }

  #key(tool: string, name: string): KeyRow {
    const key = this.#find(tool, name);
    if (key === undefined) throw notFound(tool, name);
    return key;
  }

  /** The entry at a position, walking the (key_id, ord) index from the nearer end. */
  #at(key: KeyRow, position: number, where: string): PlacedRow {
    const inRange =
      Number.isInteger(position) && position >= 0 && position < key.entries;
    const fromEnd = position >= key.entries / 2;
    const row = inRange
      ? this.#all<PlacedRow>(
          `SELECT ${ENTRY_COLUMNS}, object_count FROM store_entries WHERE key_id = ? ORDER BY ord ${fromEnd ? "DESC" : "ASC"} LIMIT 1 OFFSET ?`,
          key.id,
          fromEnd ? key.entries - 1 - position : position
        )[0]
      : undefined;
    if (row === undefined) {
      throw new RoostError(
        "index_out_of_range",
        `No entry at position ${position} under ${where}.`
      );
    }
    return row;
  }

  #insertObjects(entryId: number, keyId: number, rows: ObjectRow[]): void {
    for (let at = 0; at < rows.length; at += OBJECTS_PER_INSERT) {
      const chunk = rows.slice(at, at + OBJECTS_PER_INSERT);
      const params = chunk.flatMap((r, k) => [
        entryId,
        at + k,
        this.#episode,
        keyId,
        r.refId,
        r.hash,
        r.body
      ]);
      this.#sql.exec(
        `INSERT INTO store_objects (entry_id, i, episode, key_id, ref_id, hash, body) VALUES ${placeholders(chunk.length, "(?, ?, ?, ?, ?, ?, ?)")}`,
        ...params
      );
    }
  }

  #addCounts(keyId: number, entries: number, objects: number): void {
    this.#sql.exec(
      "UPDATE store_keys SET entries = entries + ?, objects = objects + ? WHERE id = ?",
      entries,
      objects,
      keyId
    );
  }

  keys(): KeyInfo[] {
    return this.#all<KeyInfoRow>(
      "SELECT tool, name, entries, objects FROM store_keys WHERE episode = ? ORDER BY id",
      this.#episode
    );
  }

  keysFrom(
    from: { tool: string; name: string } | undefined,
    limit: number
  ): KeyInfo[] | undefined {
    let first = 0;
    if (from !== undefined) {
      const key = this.#find(from.tool, from.name);
      if (key === undefined) return undefined;
      first = key.id;
    }
    return this.#all<KeyInfoRow>(
      "SELECT tool, name, entries, objects FROM store_keys WHERE episode = ? AND id >= ? ORDER BY id LIMIT ?",
      this.#episode,
      first,
      sqlLimit(limit)
    );
  }

  keyInfo(tool: string, name: string): KeyInfo | undefined {
    const key = this.#find(tool, name);
    return key === undefined
      ? undefined
      : { tool, name, entries: key.entries, objects: key.objects };
  }

  createKey(tool: string, name: string): void {
    this.#sql.exec(
      "INSERT INTO store_keys (episode, tool, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
      this.#episode,
      tool,
      name
    );
  }

  nextEntryNumber(tool: string, name: string): number {
    return this.#sql
      .exec<{ counter: number }>(
        `INSERT INTO store_counters (episode, tool, name, counter) VALUES (?, ?, ?, 1)
        ON CONFLICT (episode, tool, name) DO UPDATE SET counter = counter + 1
        RETURNING counter`,
        this.#episode,
        tool,
        name
      )
      .one().counter;
  }

  entryCounter(tool: string, name: string): number {
    const [row] = this.#all<{ counter: number }>(
      "SELECT counter FROM store_counters WHERE episode = ? AND tool = ? AND name = ?",
      this.#episode,
      tool,
      name
    );
    return row?.counter ?? 0;
  }

  setEntryCounter(tool: string, name: string, value: number): void {
    // Counters start at 0 and only rise, so a value of 0 or less changes nothing.
    if (!(value > 0)) return;
    this.#sql.exec(
      `INSERT INTO store_counters (episode, tool, name, counter) VALUES (?, ?, ?, ?)
      ON CONFLICT (episode, tool, name) DO UPDATE SET counter = max(counter, excluded.counter)`,
      this.#episode,
      tool,
      name,
      value
    );
  }

  entries(tool: string, name: string, offset: number, limit: number): Entry[] {
    const key = this.#key(tool, name);
    if (sqlLimit(limit) === 0) return [];
    const rows = this.#all<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM store_entries WHERE key_id = ? ORDER BY ord LIMIT ? OFFSET ?`,
      key.id,
      sqlLimit(limit),
      Math.max(0, Math.floor(offset))
    );
    return withObjects(this.#sql, rows).map((r) => r.entry);
  }

  walk(tool: string, name: string, offset: number): Iterable<EntryWalk> {
    return walkKey(this.#sql, this.#key(tool, name).id, offset);
  }

  entry(tool: string, name: string, position: number): Entry {
    const key = this.#key(tool, name);
    const row = this.#at(key, position, `${tool}/${name}`);
    const [found] = withObjects(this.#sql, [row]);
    if (found === undefined) throw new RoostError("internal", "Lost entry.");
    return found.entry;
  }

  append(
    tool: string,
    name: string,
    entry: Entry,
    fingerprints: (ObjectFingerprint | null)[]
  ): number {
    const key = this.#key(tool, name);
    const { metadata, payloadType, mapping, objects } = prepareEntry(
      entry,
      fingerprints
    );
    // A plain entry leaves the display columns to their NULL default.
    const shown = payloadType !== null || mapping !== null;
    const { id } = this.#sql
      .exec<{ id: number }>(
        `INSERT INTO store_entries (episode, key_id, ord, metadata, object_count, written${shown ? ", payload_type, mapping" : ""})
        VALUES (?1, ?2, (${NEXT_ORD}), ?3, ?4, (${NEXT_WRITTEN})${shown ? ", ?5, ?6" : ""}) RETURNING id`,
        this.#episode,
        key.id,
        metadata,
        objects.length,
        ...(shown ? [payloadType, mapping] : [])
      )
      .one();
    this.#insertObjects(id, key.id, objects);
    this.#addCounts(key.id, 1, objects.length);
    return key.entries;
  }

  set(
    tool: string,
    name: string,
    position: number,
    entry: Entry,
    fingerprints: (ObjectFingerprint | null)[]
  ): void {
    const key = this.#key(tool, name);
    const old = this.#at(key, position, `${tool}/${name}`);
    const { metadata, payloadType, mapping, objects } = prepareEntry(
      entry,
      fingerprints
    );
    this.#sql.exec("DELETE FROM store_objects WHERE entry_id = ?", old.id);
    this.#sql.exec(
      `UPDATE store_entries SET metadata = ?3, object_count = ?4,
      written = (${NEXT_WRITTEN}), payload_type = ?5, mapping = ?6 WHERE id = ?2`,
      this.#episode,
      old.id,
      metadata,
      objects.length,
      payloadType,
      mapping
    );
    this.#insertObjects(old.id, key.id, objects);
    this.#addCounts(key.id, 0, objects.length - old.object_count);
  }

  removeAt(tool: string, name: string, position: number): void {
    const key = this.#key(tool, name);
    const old = this.#at(key, position, `${tool}/${name}`);
    this.#sql.exec("DELETE FROM store_objects WHERE entry_id = ?", old.id);
    this.#sql.exec("DELETE FROM store_entries WHERE id = ?", old.id);
    this.#addCounts(key.id, -1, -old.object_count);
  }

  clear(tool: string, name: string): void {
    const key = this.#key(tool, name);
    this.#sql.exec("DELETE FROM store_objects WHERE key_id = ?", key.id);
    this.#sql.exec("DELETE FROM store_entries WHERE key_id = ?", key.id);
    this.#addCounts(key.id, -key.entries, -key.objects);
  }

  /**
   * The canonical text is not stored: it would double every object row and
   * push a large object past SQLite's 2 MB row limit. A hit on the hash index
   * (almost always the one true repeat) is confirmed by recomputing it. The
   * index holds equal hashes in rowid order, which is the order of writing.
   */
  findRepeat(
    tool: string,
    name: string,
    print: ObjectFingerprint,
    skip?: (refId: string) => boolean
  ): string | undefined {
    // Read out before `skip` runs: the caller's code must not find a cursor open.
    const candidates = this.#all<{ ref_id: string; body: string }>(
      `SELECT ref_id, body FROM store_objects
      WHERE key_id = (SELECT id FROM store_keys WHERE episode = ? AND tool = ? AND name = ?)
      AND hash = ? ORDER BY rowid`,
      this.#episode,
      tool,
      name,
      print.hash
    );
    for (const { ref_id, body } of candidates) {
      const object = JSON.parse(body) as JsonObject;
      if (fingerprint(object).canonical !== print.canonical) continue;
      if (skip?.(ref_id) !== true) return ref_id;
    }
    return undefined;
  }

  totalObjects(): number {
    return this.#sql
      .exec<{ n: number }>(
        "SELECT coalesce(sum(objects), 0) AS n FROM store_keys WHERE episode = ?",
        this.#episode
      )
      .one().n;
  }

  recent(limit: number): LocatedEntry[] {
    return recentEntries(this.#sql, this.#episode, sqlLimit(limit));
  }
}
