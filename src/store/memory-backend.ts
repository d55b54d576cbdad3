/** @module The in-memory StoreBackend: the pure core's storage, and the model the SQLite one must match. */

import { RoostError } from "../errors";
import { cloneJson } from "../json";
import type {
  Entry,
  KeyInfo,
  LocatedEntry,
  ObjectFingerprint,
  StoreBackend
} from "./types";

interface Stored {
  entry: Entry;
  fingerprints: (ObjectFingerprint | null)[];
  /** Global write number: `recent` sorts on it. */
  written: number;
}

interface IndexItem {
  canonical: string;
  refId: string;
  owner: Stored;
}

interface KeyRecord {
  tool: string;
  name: string;
  list: Stored[];
  objects: number;
  index: Map<string, IndexItem[]>;
}

/**
 * Maps all the way down: a tool or result named `__proto__` or
 * `constructor` is an ordinary key here, never a property of a prototype.
 */
export class MemoryStoreBackend implements StoreBackend {
  readonly #keys = new Map<string, KeyRecord>();
  /** Apart from keys: ids an aborted step streamed stay used after its key is gone. */
  readonly #counters = new Map<string, number>();
  #writes = 0;
  #objects = 0;

  #find(tool: string, name: string): KeyRecord | undefined {
    return this.#keys.get(JSON.stringify([tool, name]));
  }

  #get(tool: string, name: string): KeyRecord {
    const record = this.#find(tool, name);
    if (record === undefined) {
      throw new RoostError("not_found", `No results under ${tool}/${name}.`);
    }
    return record;
  }

  #at(record: KeyRecord, position: number): Stored {
    const stored = record.list[position];
    if (stored === undefined) {
      throw new RoostError(
        "index_out_of_range",
        `No entry at position ${position} under ${record.tool}/${record.name}.`
      );
    }
    return stored;
  }

  #info(record: KeyRecord): KeyInfo {
    const { tool, name, list, objects } = record;
    return { tool, name, entries: list.length, objects };
  }

  #link(record: KeyRecord, stored: Stored): void {
    stored.fingerprints.forEach((print, i) => {
      const refId = stored.entry.objects[i]?._REF_ID;
      if (print === null || typeof refId !== "string") return;
      const item = { canonical: print.canonical, refId, owner: stored };
      const bucket = record.index.get(print.hash);
      if (bucket === undefined) record.index.set(print.hash, [item]);
      else bucket.push(item);
    });
    record.objects += stored.entry.objects.length;
    this.#objects += stored.entry.objects.length;
  }

  #unlink(record: KeyRecord, stored: Stored): void {
    for (const print of stored.fingerprints) {
      if (print === null) continue;
      const bucket = record.index.get(print.hash) ?? [];
      const kept = bucket.filter((item) => item.owner !== stored);
      if (kept.length === 0) record.index.delete(print.hash);
      else record.index.set(print.hash, kept);
    }
    record.objects -= stored.entry.objects.length;
    this.#objects -= stored.entry.objects.length;
  }

  #wrap(entry: Entry, prints: (ObjectFingerprint | null)[]): Stored {
    return {
      entry: cloneJson(entry),
      fingerprints: prints.map((p) => (p === null ? null : { ...p })),
      written: ++this.#writes
    };
  }

  keys(): KeyInfo[] {
    return [...this.#keys.values()].map((r) => this.#info(r));
  }

  keyInfo(tool: string, name: string): KeyInfo | undefined {
    const record = this.#find(tool, name);
    return record === undefined ? undefined : this.#info(record);
  }

  createKey(tool: string, name: string): void {
    const key = JSON.stringify([tool, name]);
    if (this.#keys.has(key)) return;
    this.#keys.set(key, {
      tool,
      name,
      list: [],
      objects: 0,
      index: new Map()
    });
  }

  nextEntryNumber(tool: string, name: string): number {
    const next = this.entryCounter(tool, name) + 1;
    this.#counters.set(JSON.stringify([tool, name]), next);
    return next;
  }

  entryCounter(tool: string, name: string): number {
    return this.#counters.get(JSON.stringify([tool, name])) ?? 0;
  }

  setEntryCounter(tool: string, name: string, value: number): void {
    if (value > this.entryCounter(tool, name)) {
      this.#counters.set(JSON.stringify([tool, name]), value);
    }
  }

  entries(tool: string, name: string, offset: number, limit: number): Entry[] {
    return this.#get(tool, name)
      .list.slice(offset, offset + limit)
      .map((s) => cloneJson(s.entry));
  }

  entry(tool: string, name: string, position: number): Entry {
    return cloneJson(this.#at(this.#get(tool, name), position).entry);
  }

  append(
    tool: string,
    name: string,
    entry: Entry,
    fingerprints: (ObjectFingerprint | null)[]
  ): number {
    const record = this.#get(tool, name);
    const stored = this.#wrap(entry, fingerprints);
    record.list.push(stored);
    this.#link(record, stored);
    return record.list.length - 1;
  }

  set(
    tool: string,
    name: string,
    position: number,
    entry: Entry,
    fingerprints: (ObjectFingerprint | null)[]
  ): void {
    const record = this.#get(tool, name);
    this.#unlink(record, this.#at(record, position));
    const stored = this.#wrap(entry, fingerprints);
    record.list[position] = stored;
    this.#link(record, stored);
  }

  removeAt(tool: string, name: string, position: number): void {
    const record = this.#get(tool, name);
    this.#unlink(record, this.#at(record, position));
    record.list.splice(position, 1);
  }

  clear(tool: string, name: string): void {
    const record = this.#get(tool, name);
    this.#objects -= record.objects;
    record.list = [];
    record.objects = 0;
    record.index.clear();
  }

  findRepeat(
    tool: string,
    name: string,
    fingerprint: ObjectFingerprint,
    skip?: (refId: string) => boolean
  ): string | undefined {
    const bucket = this.#find(tool, name)?.index.get(fingerprint.hash) ?? [];
    for (const item of bucket) {
      if (item.canonical !== fingerprint.canonical) continue;
      if (skip?.(item.refId) !== true) return item.refId;
    }
    return undefined;
  }

  totalObjects(): number {
    return this.#objects;
  }

  recent(limit: number): LocatedEntry[] {
    const all: { record: KeyRecord; stored: Stored; index: number }[] = [];
    for (const record of this.#keys.values()) {
      record.list.forEach((stored, index) => {
        all.push({ record, stored, index });
      });
    }
    all.sort((a, b) => b.stored.written - a.stored.written);
    return all
      .slice(0, Math.max(0, limit))
      .map(({ record, stored, index }) => ({
        tool: record.tool,
        name: record.name,
        index,
        ...cloneJson(stored.entry)
      }));
  }
}
