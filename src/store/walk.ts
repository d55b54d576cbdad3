/** @module Byte-bounded reads of the store: one key's entries from an entry and an object inside it, cut where the budget ends. */

import { utf8Length } from "../json";
import type { ReadBudget } from "../protocol/read-budget";
import type {
  Entry,
  EntryPosition,
  EntryWalk,
  KeyInfo,
  LocatedEntry,
  SizedObject,
  StoreBackend
} from "./types";

/** Framing of an entry on the wire beyond its metadata and objects: field names, tool, name, index. */
const ENTRY_FRAMING = 160;

const sized = (object: Entry["objects"][number]): SizedObject => ({
  object,
  bytes: utf8Length(JSON.stringify(object)) + 1
});

/** The walk of a backend that has no lazy one: each entry loaded whole, as `entries` gives it. */
function* walkLoaded(
  backend: StoreBackend,
  tool: string,
  name: string,
  offset: number
): Iterable<EntryWalk> {
  for (let at = offset; ; at += 16) {
    const loaded = backend.entries(tool, name, at, 16);
    for (const { objects, ...head } of loaded) {
      yield {
        ...head,
        headBytes: utf8Length(JSON.stringify(head)) + ENTRY_FRAMING,
        objectCount: objects.length,
        objects: (from) => objects.slice(from).map(sized)
      };
    }
    if (loaded.length < 16) return;
  }
}

/** Keys in creation order from `from` (included), `limit` at most; `undefined` when `from` is gone. */
export const keysFrom = (
  backend: StoreBackend,
  from: { tool: string; name: string } | undefined,
  limit: number
): KeyInfo[] | undefined => {
  if (backend.keysFrom) return backend.keysFrom(from, limit);
  const keys = backend.keys();
  const start =
    from === undefined
      ? 0
      : keys.findIndex((k) => k.tool === from.tool && k.name === from.name);
  return start < 0 ? undefined : keys.slice(start, start + limit);
};

export const walkEntries = (
  backend: StoreBackend,
  tool: string,
  name: string,
  offset: number
): Iterable<EntryWalk> =>
  backend.walk?.(tool, name, offset) ?? walkLoaded(backend, tool, name, offset);

/**
 * Reads a key's entries from `from` while `limit` entries and the budget
 * allow. An entry's head travels with its first object (or alone when it
 * has none), so no part is empty; an entry cut by the budget is returned in
 * part (`objectsFrom`, `objectCount`) and `next` points inside it.
 */
export const readRun = (
  backend: StoreBackend,
  tool: string,
  name: string,
  total: number,
  from: EntryPosition,
  limit: number,
  budget: ReadBudget
): { entries: LocatedEntry[]; next?: EntryPosition } => {
  const entries: LocatedEntry[] = [];
  if (from.index >= total || limit <= 0) return { entries };
  let index = from.index;
  let object = from.object;
  for (const walked of walkEntries(backend, tool, name, index)) {
    if (entries.length === limit) return { entries, next: { index, object } };
    const { headBytes, objectCount, objects: read, ...head } = walked;
    const start = Math.min(object, objectCount);
    const objects: Entry["objects"] = [];
    let headTaken = false;
    let cut = false;
    if (start === objectCount) {
      headTaken = budget.take(headBytes);
      cut = !headTaken;
    } else {
      for (const { object: o, bytes } of read(start)) {
        if (!budget.take(bytes + (headTaken ? 0 : headBytes))) {
          cut = true;
          break;
        }
        headTaken = true;
        objects.push(o);
      }
    }
    if (headTaken) {
      const whole = start === 0 && objects.length === objectCount;
      entries.push({
        tool,
        name,
        index,
        objects,
        ...head,
        ...(whole ? {} : { objectsFrom: start, objectCount })
      });
    }
    if (cut)
      return { entries, next: { index, object: start + objects.length } };
    index++;
    object = 0;
    if (index >= total) return { entries };
  }
  return { entries };
};
