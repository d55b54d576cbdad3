/** @module Types of the environment store (Elysia's store of tool results) and its backends. */

import type { JsonObject, JsonValue } from "../json";
import type { EntryDisplay } from "./display";

/**
 * One entry under `[tool][name]`: objects that share one metadata, and,
 * when the result gave them, its payload type and mapping (absent otherwise).
 */
export interface Entry extends EntryDisplay {
  objects: JsonObject[];
  metadata: JsonObject;
}

/** The whole store as JSON: `{ [tool]: { [name]: Entry[] } }`; a page's entries may be parts. */
export type StoreJson = Record<string, Record<string, (Entry & EntryPart)[]>>;

/** A `[tool][name]` key with its counts (kept, never counted by a scan). */
export interface KeyInfo {
  tool: string;
  name: string;
  entries: number;
  objects: number;
}

/** An entry with where it lives, as `recent()` and paging return it. */
export interface LocatedEntry extends Entry, EntryPart {
  tool: string;
  name: string;
  /** Position in its key's list, 0-based. */
  index: number;
}

/**
 * Set only on an entry a byte-bounded read holds in part: its objects here
 * are the entry's from `objectsFrom` on, of `objectCount` in all. The next
 * page continues the same entry; concatenated in order, the parts are it.
 */
export interface EntryPart {
  objectsFrom?: number;
  objectCount?: number;
}

/** One object as a byte-bounded read sees it: the object and the bytes of its JSON. */
export interface SizedObject {
  object: JsonObject;
  bytes: number;
}

/**
 * An entry as a byte-bounded read walks it: everything but its objects,
 * which it reads lazily from a position so a page can stop inside an entry
 * without loading the rest.
 */
export interface EntryWalk extends EntryDisplay {
  metadata: JsonObject;
  /** Bytes of the entry without its objects (metadata, display, framing). */
  headBytes: number;
  objectCount: number;
  objects(from: number): Iterable<SizedObject>;
}

/** Options of `add` / `addObjects`. */
export interface AddOptions {
  /** Store deep-equal objects again instead of `[repeat]` markers. */
  includeDuplicates?: boolean;
}

/** Options of `addObjects`: `add` takes the payload type and mapping from its Result. */
export interface AddObjectsOptions extends AddOptions, EntryDisplay {}

/** A page of the store, in key order then entry order. */
export interface StorePage {
  store: StoreJson;
  nextCursor?: string;
  /** The byte budget ended the page (see `ReadBudget`). */
  truncated?: true;
}

/** A page of the store's keys. */
export interface KeyPage {
  keys: KeyInfo[];
  nextCursor?: string;
  truncated?: true;
}

/** Where a byte-bounded read of one key starts: an entry, and an object inside it. */
export interface EntryPosition {
  index: number;
  object: number;
}

/** A byte-bounded run of one key's entries; `next` is where the next read starts. */
export interface EntryRun {
  entries: LocatedEntry[];
  total: number;
  next?: EntryPosition;
  truncated?: true;
}

/**
 * The environment store seen by tools, the session and the routes. Every
 * method is synchronous (like `sql.exec`); values going in and out are copies.
 */
export interface EnvironmentStore {
  /** Appends a Result's objects and metadata under `[tool][result.name]`; returns the stored entry. */
  add(tool: string, result: ResultLike, options?: AddOptions): LocatedEntry;
  /** Appends objects under `[tool][name]` without a Result. */
  addObjects(
    tool: string,
    name: string,
    objects: JsonObject[],
    metadata?: JsonObject,
    options?: AddObjectsOptions
  ): LocatedEntry;
  /**
   * Without index the whole list becomes one entry; with index only that
   * entry (negative counts from the end). The new entry is whole: like its
   * metadata, its payload type and mapping are what `display` gives (none
   * when absent), never kept from the entry it replaces.
   */
  replace(
    tool: string,
    name: string,
    objects: JsonObject[],
    metadata?: JsonObject,
    index?: number,
    display?: EntryDisplay
  ): LocatedEntry;
  find(tool: string, name: string): Entry[];
  find(tool: string, name: string, index: number): Entry;
  /** One entry with its position resolved (negative indexes count from the end). */
  locate(tool: string, name: string, index: number): LocatedEntry;
  /** A page of one key's entries, oldest first, with the key's size: reads only that page. */
  slice(
    tool: string,
    name: string,
    offset: number,
    limit: number
  ): { entries: LocatedEntry[]; total: number };
  /** Removes one entry, or every entry (the key stays, with an empty list). */
  remove(tool: string, name: string, index?: number): void;
  has(tool: string, name: string): boolean;
  isEmpty(): boolean;
  keys(): KeyInfo[];
  /** The keys a page at a time (`limit` keys, `maxBytes` of JSON), for stores with very many. */
  keyPage(options?: {
    cursor?: string;
    limit?: number;
    maxBytes?: number;
  }): KeyPage;
  /**
   * Entries in key order, a page at a time; `limit` counts entries and
   * `maxBytes` bounds the page's JSON (an entry past it comes in parts).
   */
  page(options?: {
    cursor?: string;
    limit?: number;
    maxBytes?: number;
  }): StorePage;
  /**
   * One key's entries from a position, at most `limit` of them and about
   * `maxBytes` of JSON; with `only`, the one entry at `from.index`.
   */
  read(
    tool: string,
    name: string,
    from: EntryPosition,
    options: { limit: number; maxBytes?: number; only?: boolean }
  ): EntryRun;
  /** Entries newest first across all keys. */
  recent(limit: number): LocatedEntry[];
  /** The visible store as compact JSON for a model, newest first, capped at `maxBytes` with a note. */
  llmView(options?: { maxBytes?: number }): string;
  /** The whole store. Meant for small sessions and tests; routes page instead. */
  toJSON(): StoreJson;
}

/** The methods of `EnvironmentStore` that only read. */
export const STORE_READ_METHODS = [
  "find",
  "locate",
  "slice",
  "has",
  "isEmpty",
  "keys",
  "keyPage",
  "page",
  "read",
  "recent",
  "llmView",
  "toJSON"
] as const;

/**
 * The store's read API without its writes: what decision-tree rules and a
 * tool's `ctx.tree` see (Elysia's `tree_data.environment`).
 */
export type EnvironmentReader = Pick<
  EnvironmentStore,
  (typeof STORE_READ_METHODS)[number]
>;

/** What `add` needs of a Result. */
export interface ResultLike extends EntryDisplay {
  name: string;
  objects: JsonObject[];
  metadata?: JsonObject;
}

/** A stored object's de-duplication fingerprint: `hash` indexes, `canonical` confirms. */
export interface ObjectFingerprint {
  hash: string;
  canonical: string;
}

/**
 * The storage primitives the store's semantics are written on once. A backend
 * knows nothing of `_REF_ID`s, `[repeat]` or negative indexes; positions it
 * receives are already checked to be in range.
 */
export interface StoreBackend {
  /** Keys in creation order. */
  keys(): KeyInfo[];
  /**
   * Up to `limit` keys in creation order from the key `from` on (itself
   * included), or from the first; `undefined` when `from` does not exist.
   * A backend without it is read through `keys()`.
   */
  keysFrom?(
    from: { tool: string; name: string } | undefined,
    limit: number
  ): KeyInfo[] | undefined;
  keyInfo(tool: string, name: string): KeyInfo | undefined;
  createKey(tool: string, name: string): void;
  /** Bumps and returns the key's entry counter (1, 2, …); never goes back, even after removals. */
  nextEntryNumber(tool: string, name: string): number;
  /**
   * The counter's current value (0 before the first entry), without bumping
   * it. Counters live apart from keys: a counter may exist for a key that
   * does not (a step that streamed ids and then aborted).
   */
  entryCounter(tool: string, name: string): number;
  /** Raises the counter to `value`; a lower value is ignored (counters never go back). */
  setEntryCounter(tool: string, name: string, value: number): void;
  entries(tool: string, name: string, offset: number, limit: number): Entry[];
  entry(tool: string, name: string, position: number): Entry;
  /**
   * The key's entries from `offset`, read lazily (a backend without it is
   * walked through `entries`, loading each entry whole).
   */
  walk?(tool: string, name: string, offset: number): Iterable<EntryWalk>;
  /** `fingerprints[i]` belongs to `entry.objects[i]`; `null` for objects not to index (repeat markers). */
  append(
    tool: string,
    name: string,
    entry: Entry,
    fingerprints: (ObjectFingerprint | null)[]
  ): number;
  set(
    tool: string,
    name: string,
    position: number,
    entry: Entry,
    fingerprints: (ObjectFingerprint | null)[]
  ): void;
  removeAt(tool: string, name: string, position: number): void;
  /** Empties the key's list; the key stays. */
  clear(tool: string, name: string): void;
  /**
   * `_REF_ID` of a stored object under this key with the same fingerprint,
   * if any: the first in the order objects were indexed for which `skip`
   * (called once per match, in that order) is not true. An overlay skips
   * objects whose entry it removed but the base still holds.
   */
  findRepeat(
    tool: string,
    name: string,
    fingerprint: ObjectFingerprint,
    skip?: (refId: string) => boolean
  ): string | undefined;
  totalObjects(): number;
  /** Entries newest first across all keys (by time of last write). */
  recent(limit: number): LocatedEntry[];
}

/**
 * A per-session key/value store that never reaches the model or a client.
 * Values must be JSON (they are persisted as JSON); reads return copies.
 */
export interface HiddenStore {
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  set(key: string, value: JsonValue): void;
  has(key: string): boolean;
  delete(key: string): boolean;
  keys(): string[];
}
