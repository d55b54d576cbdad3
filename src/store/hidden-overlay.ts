/** @module An in-memory overlay over a HiddenStore: a mutation's sets and deletes, applied by one `flush()`. */

import type { JsonValue } from "../json";
import { MemoryHiddenStore } from "./hidden-store";
import type { HiddenStore } from "./types";

/**
 * Keys list as a Map would after the same calls on the base: updated keys
 * keep their place, new keys (and keys deleted then set again) follow in
 * the order they were set.
 *
 * @example
 * const hidden = new OverlayHiddenStore(sqliteHidden);
 * hidden.set("raw", rows); // the base sees nothing yet
 * ctx.storage.transactionSync(() => hidden.flush());
 */
export class OverlayHiddenStore implements HiddenStore {
  readonly #base: HiddenStore;
  /** Pending values; a memory store, so they are checked and copied by the same rules. */
  #pending = new MemoryHiddenStore();
  /** Base keys deleted and not set again. */
  #deleted = new Set<string>();
  /** Pending keys that go after the base's keys. */
  #fresh = new Set<string>();

  /** Before each set (a throw refuses it): the mutation's meter. */
  readonly #beforeSet: ((key: string, value: JsonValue) => void) | undefined;

  constructor(
    base: HiddenStore,
    beforeSet?: (key: string, value: JsonValue) => void
  ) {
    this.#base = base;
    this.#beforeSet = beforeSet;
  }

  /** True once a set or delete waits to be flushed. */
  get touched(): boolean {
    return this.#deleted.size > 0 || this.#pending.keys().length > 0;
  }

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    if (this.#pending.has(key)) return this.#pending.get<T>(key);
    return this.#deleted.has(key) ? undefined : this.#base.get<T>(key);
  }

  set(key: string, value: JsonValue): void {
    this.#beforeSet?.(key, value);
    const first = !this.#pending.has(key);
    // Throws on a value that is not JSON before anything here changes.
    this.#pending.set(key, value);
    if (!first) return;
    if (this.#deleted.delete(key) || !this.#base.has(key)) {
      this.#fresh.add(key);
    }
  }

  has(key: string): boolean {
    if (this.#pending.has(key)) return true;
    return !this.#deleted.has(key) && this.#base.has(key);
  }

  delete(key: string): boolean {
    const existed = this.has(key);
    this.#pending.delete(key);
    this.#fresh.delete(key);
    if (this.#base.has(key)) this.#deleted.add(key);
    return existed;
  }

  keys(): string[] {
    const kept = this.#base
      .keys()
      .filter((k) => !this.#deleted.has(k) && !this.#fresh.has(k));
    const added = this.#pending.keys().filter((k) => this.#fresh.has(k));
    return kept.concat(added);
  }

  /**
   * Applies the deletes, then the sets in order. A fresh key the base
   * still holds is deleted first, so it moves to the end there too.
   */
  flush(): void {
    for (const key of this.#deleted) this.#base.delete(key);
    for (const key of this.#pending.keys()) {
      if (this.#fresh.has(key)) this.#base.delete(key);
      this.#base.set(key, this.#pending.get(key) ?? null);
    }
    this.discard();
  }

  /**
   * What `flush` will do, as operations in its order: `[key]` deletes,
   * `[key, value]` sets. Applied to a copy of the base, they give what the
   * base will hold (re-scoring replays a commit's changes with them).
   */
  changes(): ([key: string] | [key: string, value: JsonValue])[] {
    const out: ([key: string] | [key: string, value: JsonValue])[] = [];
    for (const key of this.#deleted) out.push([key]);
    for (const key of this.#pending.keys()) {
      if (this.#fresh.has(key)) out.push([key]);
      out.push([key, this.#pending.get(key) ?? null]);
    }
    return out;
  }

  /** Drops every pending write; the base never saw them. */
  discard(): void {
    this.#pending = new MemoryHiddenStore();
    this.#deleted = new Set();
    this.#fresh = new Set();
  }
}
