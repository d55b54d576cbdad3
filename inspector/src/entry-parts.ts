/**
 * @module A key's entries put back together from pages. A page's byte
 * budget may end inside an entry: it then holds the entry's objects from
 * `objects_from` on (of `object_count`), and the next page's first entry,
 * with the same index, goes on from there. Joined, each entry is one entry
 * with all its objects, each once.
 */

import type { Entry } from "./payload-view";

/** An entry as a page carries it: whole, or a part marked by its offset. */
export interface EntryPart extends Entry {
  objects_from?: number;
  object_count?: number;
}

/**
 * Adds a page's entries to `held`, in place. A part that goes on with
 * the last held entry adds only the objects it does not hold yet, so a
 * page read twice (a retry, a reload racing a read) never repeats one.
 */
export const joinEntries = (held: Entry[], page: EntryPart[]): void => {
  for (const part of page) {
    const { objects_from: from, object_count: _count, ...entry } = part;
    const last = held.at(-1);
    if (last !== undefined && last.index === entry.index) {
      const start = from ?? 0;
      const fresh = last.objects.length - start;
      if (fresh >= 0) last.objects.push(...entry.objects.slice(fresh));
      continue;
    }
    // Entries come in index order: an older index is one already held.
    if (last !== undefined && entry.index < last.index) continue;
    held.push({ ...entry, objects: [...entry.objects] });
  }
};
