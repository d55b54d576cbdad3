/** @module Reading the environment store a page of entries at a time. */

import { RoostError } from "../errors";
import { decodeCursor, encodeCursor } from "./cursor";
import { putEntries } from "./store-json";
import type { StoreBackend, StoreJson, StorePage } from "./types";

/**
 * Entries in key order then position; `limit` counts entries. Keys with no
 * entries left ride along on the page before the next entry, so the pages
 * put together (lists under one key concatenated) are exactly `toJSON()`
 * and no page is empty except the page of an empty store.
 */
export const readPage = (
  backend: StoreBackend,
  cursor: string | undefined,
  limit: number
): StorePage => {
  const keys = backend.keys();
  let start = 0;
  let offset = 0;
  if (cursor !== undefined) {
    const at = decodeCursor(cursor);
    start = keys.findIndex((k) => k.tool === at.tool && k.name === at.name);
    if (start < 0) {
      throw new RoostError(
        "invalid_request",
        "Invalid cursor: its key no longer exists (was the session reset?). Start again without a cursor."
      );
    }
    offset = at.index;
  }
  const store: StoreJson = {};
  let remaining = limit;
  for (let i = start; i < keys.length; i++) {
    const key = keys[i];
    if (key === undefined) continue;
    const from = i === start ? Math.min(offset, key.entries) : 0;
    const take = Math.min(remaining, key.entries - from);
    if (remaining === 0 && take === 0 && key.entries > from) {
      return {
        store,
        nextCursor: encodeCursor({
          tool: key.tool,
          name: key.name,
          index: from
        })
      };
    }
    if (from === 0 || take > 0) {
      const entries =
        take > 0 ? backend.entries(key.tool, key.name, from, take) : [];
      putEntries(store, key.tool, key.name, entries);
    }
    remaining -= take;
    if (remaining === 0 && from + take < key.entries) {
      const index = from + take;
      return {
        store,
        nextCursor: encodeCursor({ tool: key.tool, name: key.name, index })
      };
    }
  }
  return { store };
};
