/** @module `recent` through an overlay: its own entries, newest first, then the base's that are still live. */

import { cloneJson } from "../json";
import type { KeySlots } from "./overlay-slots";
import type { LocatedEntry, StoreBackend } from "./types";

/** A key the overlay wrote to, as `recent` needs it. */
export interface TouchedKey {
  tool: string;
  name: string;
  slots: KeySlots;
}

/**
 * Every entry written in the overlay is newer than every base entry, so
 * they come first; base entries follow at their current index, skipping
 * those the overlay removed or replaced. The base is asked for more only
 * while removed ones take the places of live ones.
 *
 * @example
 * const newest = mergeRecent(base, keys.values(), findKey, 5);
 */
export const mergeRecent = (
  base: StoreBackend,
  touched: Iterable<TouchedKey>,
  find: (tool: string, name: string) => TouchedKey | undefined,
  limit: number
): LocatedEntry[] => {
  const fresh = [...touched].flatMap(({ tool, name, slots }) =>
    slots.newSlots().map(({ slot, index }) => ({ tool, name, slot, index }))
  );
  fresh.sort((a, b) => b.slot.seq - a.slot.seq);
  const out: LocatedEntry[] = fresh
    .slice(0, Math.max(0, limit))
    .map(({ tool, name, slot, index }) => ({
      tool,
      name,
      index,
      ...cloneJson(slot.entry)
    }));
  const need = limit - out.length;
  if (need <= 0) return out;
  for (let ask = need; ; ) {
    const rows = base.recent(ask);
    const live = rows.flatMap((row) => {
      const key = find(row.tool, row.name);
      if (key === undefined) return [row];
      const index = key.slots.indexOfBase(row.index);
      return index === undefined ? [] : [{ ...row, index }];
    });
    if (live.length >= need || rows.length < ask) {
      return out.concat(live.slice(0, need));
    }
    ask = Math.max(ask * 2, need + rows.length - live.length);
  }
};
