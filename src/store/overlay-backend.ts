/** @module An in-memory overlay over a StoreBackend: a mutation's writes, readable at once, applied by one `flush()`. */

import { RoostError } from "../errors";
import { cloneJson } from "../json";
import { OverlayLog, type Prints } from "./overlay-ops";
import { mergeRecent } from "./overlay-recent";
import { OverlayRepeats } from "./overlay-repeats";
import { KeySlots, type NewSlot, type Occupant } from "./overlay-slots";
import type {
  Entry,
  KeyInfo,
  LocatedEntry,
  ObjectFingerprint,
  StoreBackend
} from "./types";

/** A key the mutation wrote to. Keys it only read are never loaded. */
interface KeyState {
  tool: string;
  name: string;
  slots: KeySlots;
  objects: number;
  repeats: OverlayRepeats;
}

const newState = (
  tool: string,
  name: string,
  entries: number,
  objects: number
): KeyState => ({
  tool,
  name,
  slots: new KeySlots(entries),
  objects,
  repeats: new OverlayRepeats(entries > 0)
});

export interface OverlayStoreOptions {
  /** Called with every entry number handed out, so ids streamed before a crash are never reused. */
  onCounter?: (tool: string, name: string, value: number) => void;
  /** Told of each write: before it (a throw refuses it) and after it. */
  watch?: StoreWriteWatch;
}

/** Typed taps on a mutation's store writes: a meter before, events after. */
export interface StoreWriteWatch {
  /** Before an entry goes in (appended or replacing one); throw to refuse. */
  beforeWrite?(store: StoreBackend, entry: Entry, append: boolean): void;
  /** After a write, with the position it touched (none when a key was cleared). */
  afterWrite?(
    op: "add" | "replace" | "remove",
    tool: string,
    name: string,
    position?: number
  ): void;
}

const keyOf = (tool: string, name: string): string =>
  JSON.stringify([tool, name]);

/**
 * Reads and flush cost what the mutation touched, never the size of the
 * base: a touched key holds ranges of base positions, and a base entry is
 * loaded only when read, or when it is removed or replaced (to learn which
 * `_REF_ID`s stop being originals of a `[repeat]`).
 *
 * @example
 * const overlay = new OverlayStoreBackend(sqliteBackend);
 * createEnvironmentStore(overlay).add("search", result);
 * ctx.storage.transactionSync(() => overlay.flush());
 */
export class OverlayStoreBackend implements StoreBackend {
  readonly #base: StoreBackend;
  readonly #onCounter: OverlayStoreOptions["onCounter"];
  readonly #watch: StoreWriteWatch;
  #keys = new Map<string, KeyState>();
  #log = new OverlayLog();
  #seq = 0;
  #objectDelta = 0;

  constructor(base: StoreBackend, options: OverlayStoreOptions = {}) {
    this.#base = base;
    this.#onCounter = options.onCounter;
    this.#watch = options.watch ?? {};
  }

  /** True once anything (an entry, a key, a counter) waits to be flushed. */
  get touched(): boolean {
    return !this.#log.empty;
  }

  /**
   * Applies every write to the base, in order, then empties the overlay.
   * Meant for one `transactionSync`: if the base throws half-way, the
   * transaction rolls back and the caller discards the overlay.
   */
  flush(): void {
    this.#log.replay(this.#base);
    this.discard();
  }

  /** Drops every pending write; the base never saw them. */
  discard(): void {
    this.#keys = new Map();
    this.#log = new OverlayLog();
    this.#objectDelta = 0;
  }

  keys(): KeyInfo[] {
    const listed = this.#base.keys().map((k) => {
      const state = this.#keys.get(keyOf(k.tool, k.name));
      return state === undefined ? k : this.#info(state);
    });
    const known = new Set(listed.map((k) => keyOf(k.tool, k.name)));
    for (const [key, state] of this.#keys) {
      if (!known.has(key)) listed.push(this.#info(state));
    }
    return listed;
  }

  keyInfo(tool: string, name: string): KeyInfo | undefined {
    const state = this.#keys.get(keyOf(tool, name));
    return state === undefined
      ? this.#base.keyInfo(tool, name)
      : this.#info(state);
  }

  createKey(tool: string, name: string): void {
    if (this.keyInfo(tool, name) !== undefined) return;
    this.#keys.set(keyOf(tool, name), newState(tool, name, 0, 0));
    this.#log.push({ op: "createKey", tool, name });
  }

  nextEntryNumber(tool: string, name: string): number {
    const value = this.entryCounter(tool, name) + 1;
    this.#log.setCounter(tool, name, value);
    this.#onCounter?.(tool, name, value);
    return value;
  }

  entryCounter(tool: string, name: string): number {
    return this.#log.counter(tool, name) ?? this.#base.entryCounter(tool, name);
  }

  setEntryCounter(tool: string, name: string, value: number): void {
    if (value > this.entryCounter(tool, name)) {
      this.#log.setCounter(tool, name, value);
    }
  }

  entries(tool: string, name: string, offset: number, limit: number): Entry[] {
    const state = this.#keys.get(keyOf(tool, name));
    if (state === undefined) {
      return this.#base.entries(tool, name, offset, limit);
    }
    return state.slots
      .read(offset, limit)
      .flatMap((run) =>
        run.kind === "new"
          ? [cloneJson(run.slot.entry)]
          : this.#base.entries(tool, name, run.start, run.count)
      );
  }

  entry(tool: string, name: string, position: number): Entry {
    const state = this.#keys.get(keyOf(tool, name));
    if (state === undefined) return this.#base.entry(tool, name, position);
    const occupant = state.slots.at(position);
    return occupant.kind === "new"
      ? cloneJson(occupant.slot.entry)
      : this.#base.entry(tool, name, occupant.position);
  }

  append(tool: string, name: string, entry: Entry, prints: Prints): number {
    this.#watch.beforeWrite?.(this, entry, true);
    const state = this.#touch(tool, name);
    const slot = this.#newSlot(entry, prints);
    state.slots.append(slot);
    this.#link(state, slot);
    const copy = { entry: slot.entry, prints: slot.fingerprints };
    this.#log.push({ op: "append", tool, name, ...copy });
    const index = state.slots.length - 1;
    this.#watch.afterWrite?.("add", tool, name, index);
    return index;
  }

  set(
    tool: string,
    name: string,
    position: number,
    entry: Entry,
    prints: Prints
  ): void {
    this.#watch.beforeWrite?.(this, entry, false);
    const state = this.#touch(tool, name);
    const slot = this.#newSlot(entry, prints);
    this.#drop(state, state.slots.set(position, slot));
    this.#link(state, slot);
    const copy = { entry: slot.entry, prints: slot.fingerprints };
    this.#log.push({ op: "set", tool, name, position, ...copy });
    this.#watch.afterWrite?.("replace", tool, name, position);
  }

  removeAt(tool: string, name: string, position: number): void {
    const state = this.#touch(tool, name);
    this.#drop(state, state.slots.removeAt(position));
    this.#log.push({ op: "removeAt", tool, name, position });
    this.#watch.afterWrite?.("remove", tool, name, position);
  }

  clear(tool: string, name: string): void {
    const state = this.#touch(tool, name);
    this.#objectDelta -= state.objects;
    state.objects = 0;
    state.slots.clear();
    state.repeats.clear();
    this.#log.push({ op: "clear", tool, name });
    this.#watch.afterWrite?.("remove", tool, name);
  }

  findRepeat(
    tool: string,
    name: string,
    print: ObjectFingerprint,
    skip?: (refId: string) => boolean
  ): string | undefined {
    const state = this.#keys.get(keyOf(tool, name));
    if (state === undefined) {
      return this.#base.findRepeat(tool, name, print, skip);
    }
    return state.repeats.find(this.#base, tool, name, print, skip);
  }

  totalObjects(): number {
    return this.#base.totalObjects() + this.#objectDelta;
  }

  recent(limit: number): LocatedEntry[] {
    const keys = this.#keys;
    const find = (tool: string, name: string) => keys.get(keyOf(tool, name));
    return mergeRecent(this.#base, keys.values(), find, limit);
  }

  #info(state: KeyState): KeyInfo {
    const { tool, name, objects } = state;
    return { tool, name, entries: state.slots.length, objects };
  }

  #touch(tool: string, name: string): KeyState {
    const key = keyOf(tool, name);
    const known = this.#keys.get(key);
    if (known !== undefined) return known;
    const info = this.#base.keyInfo(tool, name);
    if (info === undefined) {
      throw new RoostError("not_found", `No results under ${tool}/${name}.`);
    }
    const state = newState(tool, name, info.entries, info.objects);
    this.#keys.set(key, state);
    return state;
  }

  #newSlot(entry: Entry, prints: Prints): NewSlot {
    return {
      entry: cloneJson(entry),
      fingerprints: prints.map((p) => (p === null ? null : { ...p })),
      seq: ++this.#seq
    };
  }

  #link(state: KeyState, slot: NewSlot): void {
    state.repeats.link(slot);
    state.objects += slot.entry.objects.length;
    this.#objectDelta += slot.entry.objects.length;
  }

  /** Forgets what left a position: a new entry, or a base entry (loaded once, to un-original its objects). */
  #drop(state: KeyState, occupant: Occupant): void {
    let count: number;
    if (occupant.kind === "new") {
      count = occupant.slot.entry.objects.length;
      state.repeats.unlink(occupant.slot);
    } else {
      const { tool, name } = state;
      const { objects } = this.#base.entry(tool, name, occupant.position);
      count = objects.length;
      state.repeats.forgetBase(objects);
    }
    state.objects -= count;
    this.#objectDelta -= count;
  }
}
