/**
 * @module Reading the store back over HTTP as a client would: the whole
 * store a page at a time, one key's entries, one entry in parts, and the
 * keys; each follows `next_cursor` until it is absent.
 */

import type { KeyPlan } from "./plan";
import type { EntryPart, StoreSequence } from "./store-sequence";
import { count, newTally, query, type Tally } from "./tally";
import type { SessionRef, Wire } from "./wire";

export interface PageOptions {
  maxBytes?: number;
  limit?: number;
  /** Runs between two pages with the cursor about to be read (an abort, say). */
  between?: (page: number, cursor: string) => Promise<void>;
}

type Paged = { next_cursor?: string; truncated?: true };

interface StorePage extends Paged {
  store: Record<
    string,
    Record<string, Omit<EntryPart, "tool" | "name" | "index">[]>
  >;
}

/** Follows `next_cursor` from the start: each page's value goes to `take`. */
const follow = async <P extends Paged>(
  wire: Wire,
  s: SessionRef,
  path: (cursor: string | undefined) => string,
  take: (page: P) => void,
  options: PageOptions = {}
): Promise<Tally> => {
  const tally = newTally();
  let cursor: string | undefined;
  do {
    const { value, bytes } = await wire.page<P>(s, path(cursor));
    count(tally, bytes, value.truncated);
    take(value);
    if (value.next_cursor !== undefined && value.next_cursor === cursor) {
      throw new Error(`A page gave back its own cursor ${cursor}.`);
    }
    cursor = value.next_cursor;
    if (cursor !== undefined) await options.between?.(tally.pages, cursor);
  } while (cursor !== undefined);
  return tally;
};

/** `GET …/environment` from the start to the end: every entry's parts, in page order. */
export const readStore = (
  wire: Wire,
  s: SessionRef,
  into: StoreSequence,
  options: PageOptions = {}
): Promise<Tally> =>
  follow<StorePage>(
    wire,
    s,
    (cursor) =>
      `/environment${query({ cursor, limit: options.limit, max_bytes: options.maxBytes })}`,
    (page) => {
      for (const [tool, names] of Object.entries(page.store)) {
        for (const [name, entries] of Object.entries(names)) {
          for (const entry of entries) into.take({ tool, name, ...entry });
        }
      }
    },
    options
  );

/** `GET …/environment?tool=&name=`: one key's entries, page by page. */
export const readKey = (
  wire: Wire,
  s: SessionRef,
  key: KeyPlan,
  into: StoreSequence,
  options: PageOptions = {}
): Promise<Tally> =>
  follow<{ entries: EntryPart[] } & Paged>(
    wire,
    s,
    (cursor) =>
      `/environment${query({ tool: key.tool, name: key.name, cursor, limit: options.limit, max_bytes: options.maxBytes })}`,
    (page) => {
      for (const entry of page.entries) into.take(entry);
    },
    options
  );

/** `GET …/environment?tool=&name=&index=`: one entry, part by part. */
export const readEntry = (
  wire: Wire,
  s: SessionRef,
  key: KeyPlan,
  index: number,
  into: StoreSequence,
  options: PageOptions = {}
): Promise<Tally> =>
  follow<{ entry: EntryPart } & Paged>(
    wire,
    s,
    (cursor) =>
      `/environment${query({ tool: key.tool, name: key.name, index, cursor, max_bytes: options.maxBytes })}`,
    (page) => into.take(page.entry),
    options
  );

export interface KeyInfo {
  tool: string;
  name: string;
  entries: number;
  objects: number;
}

/** `GET …/environment/keys`: every key with its counts, in creation order. */
export const readKeys = async (
  wire: Wire,
  s: SessionRef,
  options: PageOptions = {}
): Promise<{ keys: KeyInfo[]; tally: Tally }> => {
  const keys: KeyInfo[] = [];
  const tally = await follow<{ keys: KeyInfo[] } & Paged>(
    wire,
    s,
    (cursor) =>
      `/environment/keys${query({ cursor, limit: options.limit, max_bytes: options.maxBytes })}`,
    (page) => keys.push(...page.keys),
    options
  );
  return { keys, tally };
};

/** `GET …/messages`: the transcript, page by page. */
export const readMessages = (
  wire: Wire,
  s: SessionRef,
  take: (message: { role: string; content?: unknown }) => void,
  options: PageOptions = {}
): Promise<Tally> =>
  follow<{ messages: { role: string; content?: unknown }[] } & Paged>(
    wire,
    s,
    (cursor) =>
      `/messages${query({ cursor, limit: options.limit, max_bytes: options.maxBytes })}`,
    (page) => {
      for (const message of page.messages) take(message);
    },
    options
  );

/** `GET …/state`: the typed state, page by page, merged. */
export const readState = async (
  wire: Wire,
  s: SessionRef,
  options: PageOptions = {}
): Promise<{ state: Record<string, unknown>; tally: Tally }> => {
  const state: Record<string, unknown> = {};
  const tally = await follow<{ state: Record<string, unknown> } & Paged>(
    wire,
    s,
    (cursor) => `/state${query({ cursor, max_bytes: options.maxBytes })}`,
    (page) => {
      for (const [key, value] of Object.entries(page.state)) {
        if (key in state) throw new Error(`State key ${key} came twice.`);
        state[key] = value;
      }
    },
    options
  );
  return { state, tally };
};
