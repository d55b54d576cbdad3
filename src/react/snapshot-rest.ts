/** @module The part of a cut snapshot still to read: state and keys past its budget, read over HTTP and merged with what events changed meanwhile. */

import type { SnapshotFrame } from "../client/socket-options";
import type { JsonValue } from "../json";
import type { EventFrame, KeyInfo } from "../protocol";
import type { SessionView } from "./session-view";

/** The slices a rest read fills in, in the view or in a checkpoint of it. */
export type RestSlices = Pick<SessionView, "state" | "keys">;

/** What the HTTP reads of the rest returned. */
export interface RestRead {
  state?: Record<string, JsonValue>;
  keys?: readonly KeyInfo[];
}

/** What events did to a store key the snapshot did not hold, by seq. */
interface KeyLog {
  /** The whole list was removed: what the view counted since is exact. */
  removals: number[];
  results: { seq: number; index: number; objects: number }[];
}

const idOf = (k: { tool: string; name: string }) =>
  JSON.stringify([k.tool, k.name]);

/**
 * The HTTP reads start after the snapshot and answer as of some later
 * moment; events keep arriving meanwhile, so each merged value must not
 * undo one of them. A `state.changed` event carries the whole value, so a
 * key written since the snapshot keeps the view's. A store key's counts are
 * put together: entries are the larger of the read's and the events'
 * (`index + 1` is absolute), objects the read's plus those of results at
 * entry indexes the read had not seen yet.
 */
export class SnapshotRest {
  readonly stateCursor: string | undefined;
  readonly keysCursor: string | undefined;
  readonly #held: Set<string>;
  /** State keys written since the snapshot, with the seqs that wrote them. */
  readonly #written = new Map<string, number[]>();
  readonly #logs = new Map<string, KeyLog>();

  private constructor(snapshot: SnapshotFrame) {
    this.stateCursor = snapshot.state_next_cursor;
    this.keysCursor = snapshot.keys_next_cursor;
    this.#held = new Set(snapshot.keys.map(idOf));
  }

  /** The rest of a snapshot cut by its budget; undefined for a whole one. */
  static of(snapshot: SnapshotFrame): SnapshotRest | undefined {
    return snapshot.state_next_cursor || snapshot.keys_next_cursor
      ? new SnapshotRest(snapshot)
      : undefined;
  }

  /** Call for every event after the snapshot, before the rest is merged. */
  note(event: EventFrame): void {
    if (event.type === "state.changed")
      this.#written.set(event.key, [
        ...(this.#written.get(event.key) ?? []),
        event.seq
      ]);
    if (event.type === "result" && !this.#held.has(idOf(event)))
      this.#log(idOf(event)).results.push({
        seq: event.seq,
        index: event.index,
        objects: event.objects.length
      });
    if (
      event.type === "store.changed" &&
      event.op === "remove" &&
      event.index === undefined &&
      !this.#held.has(idOf(event))
    )
      this.#log(idOf(event)).removals.push(event.seq);
  }

  /** A mutation aborted: its events from `firstSeq` on never happened. */
  forget(firstSeq: number): void {
    for (const [key, seqs] of this.#written) {
      const kept = seqs.filter((seq) => seq < firstSeq);
      if (kept.length > 0) this.#written.set(key, kept);
      else this.#written.delete(key);
    }
    for (const log of this.#logs.values()) {
      log.removals = log.removals.filter((seq) => seq < firstSeq);
      log.results = log.results.filter((r) => r.seq < firstSeq);
    }
  }

  /**
   * The slices with the rest put in. For a checkpoint (`before`), only
   * what no event touched: a checkpoint precedes some of the events logged
   * here, so their counts are not its own.
   */
  merge(slices: RestSlices, read: RestRead, before = false): RestSlices {
    return {
      state: this.#mergeState(slices.state, read.state),
      keys: read.keys
        ? this.#mergeKeys(slices.keys, read.keys, before)
        : slices.keys
    };
  }

  #mergeState(
    state: SessionView["state"],
    rest: RestRead["state"]
  ): SessionView["state"] {
    if (!rest) return state;
    // fromEntries and spread define own properties: a key named __proto__ stays data.
    const untouched = Object.entries(rest).filter(
      ([key]) => !this.#written.has(key)
    );
    return { ...state, ...Object.fromEntries(untouched) };
  }

  #mergeKeys(
    keys: readonly KeyInfo[],
    rest: readonly KeyInfo[],
    before: boolean
  ): KeyInfo[] {
    const current = new Map(keys.map((k) => [idOf(k), k]));
    const merged: KeyInfo[] = [];
    for (const read of rest) {
      const id = idOf(read);
      // Removed and made again since the snapshot: the view counted it whole.
      if (this.#held.has(id)) continue;
      const log = this.#logs.get(id);
      if (!log || (log.removals.length === 0 && log.results.length === 0))
        merged.push(read);
      else if (!before && log.removals.length === 0)
        merged.push(counted(read, log));
      else {
        const kept = current.get(id);
        if (kept) merged.push(kept);
      }
    }
    const placed = new Set(merged.map(idOf));
    return [
      ...keys.filter((k) => this.#held.has(idOf(k))),
      ...merged,
      ...keys.filter((k) => !this.#held.has(idOf(k)) && !placed.has(idOf(k)))
    ];
  }

  #log(id: string): KeyLog {
    let log = this.#logs.get(id);
    if (!log) {
      log = { removals: [], results: [] };
      this.#logs.set(id, log);
    }
    return log;
  }
}

const counted = (read: KeyInfo, log: KeyLog): KeyInfo => {
  let entries = read.entries;
  let objects = read.objects;
  for (const result of log.results) {
    entries = Math.max(entries, result.index + 1);
    if (result.index >= read.entries) objects += result.objects;
  }
  return { ...read, entries, objects };
};
