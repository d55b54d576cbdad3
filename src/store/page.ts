/** @module Reading the environment store a page at a time, bounded in entries and in bytes. */

import { RoostError } from "../errors";
import { ReadBudget } from "../protocol/read-budget";
import { decodeCursor, encodeCursor } from "./cursor";
import { putEntries } from "./store-json";
import type {
  KeyInfo,
  KeyPage,
  StoreBackend,
  StoreJson,
  StorePage
} from "./types";
import { keysFrom, readRun } from "./walk";

/** Keys read per statement while a page walks the store. */
const KEY_CHUNK = 256;

/** The keys from `from` on, a chunk at a time, so a page never loads every key. */
function* keysOf(
  backend: StoreBackend,
  from: { tool: string; name: string } | undefined
): Iterable<KeyInfo> {
  let chunk = keysFrom(backend, from, KEY_CHUNK);
  if (chunk === undefined) {
    throw new RoostError(
      "invalid_request",
      "Invalid cursor: its key no longer exists (was the session reset?). Start again without a cursor."
    );
  }
  while (chunk !== undefined && chunk.length > 0) {
    yield* chunk;
    const last = chunk.at(-1);
    if (chunk.length < KEY_CHUNK || last === undefined) return;
    chunk = keysFrom(backend, last, KEY_CHUNK + 1)?.slice(1);
  }
}

/**
 * Entries in key order then position; `limit` counts entries (a part of one
 * counts as one) and `maxBytes` bounds the page's JSON. Keys with no
 * entries left ride along on the page before the next entry, so the pages
 * put together (lists under one key concatenated, an entry's parts joined)
 * are exactly `toJSON()` and no page is empty except the page of an empty
 * store.
 */
export const readPage = (
  backend: StoreBackend,
  cursor: string | undefined,
  limit: number,
  maxBytes = Number.POSITIVE_INFINITY
): StorePage => {
  const at = cursor === undefined ? undefined : decodeCursor(cursor);
  const budget = new ReadBudget(maxBytes);
  const store: StoreJson = {};
  const page = (next?: Parameters<typeof encodeCursor>[0]): StorePage => ({
    store,
    ...(next === undefined ? {} : { nextCursor: encodeCursor(next) }),
    ...(budget.cut ? { truncated: true } : {})
  });
  let remaining = limit;
  let first = true;
  for (const key of keysOf(backend, at)) {
    const from = first && at !== undefined ? at : { index: 0, object: 0 };
    first = false;
    if (remaining === 0) {
      // Only keys left with nothing to read ride along once the count is spent.
      if (from.index < key.entries) return page({ ...key, ...from });
      if (from.index === 0) putEntries(store, key.tool, key.name, []);
      continue;
    }
    const run = readRun(
      backend,
      key.tool,
      key.name,
      key.entries,
      from,
      remaining,
      budget
    );
    if (run.entries.length > 0) {
      putEntries(
        store,
        key.tool,
        key.name,
        run.entries.map(({ tool: _t, name: _n, index: _i, ...entry }) => entry)
      );
    } else if (from.index === 0 && run.next === undefined) {
      putEntries(store, key.tool, key.name, []);
    }
    remaining -= run.entries.length;
    if (run.next !== undefined) return page({ ...key, ...run.next });
  }
  return page();
};

/** A key's JSON on the wire: its names and two counts. */
const keyBytes = (key: KeyInfo): number =>
  key.tool.length + key.name.length + 64;

/** The store's keys in creation order, a page at a time: `limit` keys and `maxBytes` at most. */
export const readKeyPage = (
  backend: StoreBackend,
  cursor: string | undefined,
  limit: number,
  maxBytes = Number.POSITIVE_INFINITY
): KeyPage => {
  const budget = new ReadBudget(maxBytes);
  const keys: KeyInfo[] = [];
  for (const key of keysOf(
    backend,
    cursor === undefined ? undefined : decodeCursor(cursor)
  )) {
    if (keys.length === limit || !budget.take(keyBytes(key))) {
      return {
        keys,
        nextCursor: encodeCursor({ ...key, index: 0, object: 0 }),
        ...(budget.cut ? { truncated: true } : {})
      };
    }
    keys.push(key);
  }
  return { keys };
};
