/** @module `session.pages`: every paged read as an async iterator of its pages, cursors followed to the end. */

import type * as z from "zod";
import {
  EVENTS_PAGE,
  type EventsResponse,
  EventsResponseSchema,
  type MessagesResponse,
  MessagesResponseSchema,
  type StateResponse,
  StateResponseSchema,
  type StoreEntriesResponse,
  StoreEntriesResponseSchema,
  type StoreEntryResponse,
  StoreEntryResponseSchema,
  type StoreKeysResponse,
  StoreKeysResponseSchema,
  type StorePageResponse,
  StorePageResponseSchema
} from "../protocol";
import { RoostClientError } from "./client-error";

/** One GET under the session's path, retried like every read. */
export type SessionRead = <T>(
  path: string,
  schema: z.ZodType<T>,
  query?: Record<string, string | number | undefined>
) => Promise<T>;

/** Bounds of one page: `max_bytes` (1 KiB to 4 MiB, default 1 MiB) and `limit` where the route counts items. */
export interface PageQuery {
  /** Where to start: a `next_cursor` a page of the same read gave. */
  cursor?: string;
  limit?: number;
  max_bytes?: number;
}

/** `/events` pages by seq, not by cursor: `after` is passed on its own. */
export type EventsPageQuery = Omit<PageQuery, "cursor">;

const stuck = (cursor: string): RoostClientError =>
  new RoostClientError(
    "inconsistent_pages",
    `A page gave back the cursor it was read with (${cursor}): following it would never end.`
  );

/** Reads from `cursor` on, yielding each page, until one has no `next_cursor`. */
async function* follow<P extends { next_cursor?: string | undefined }>(
  cursor: string | undefined,
  read: (cursor: string | undefined) => Promise<P>
): AsyncGenerator<P, void, undefined> {
  for (let at = cursor; ; ) {
    const page = await read(at);
    yield page;
    const next = page.next_cursor;
    if (next === undefined) return;
    if (next === at) throw stuck(next);
    at = next;
  }
}

/**
 * Each method reads its route a page at a time and yields the pages as
 * they come, so no response passes its byte budget and a caller never
 * meets the limit: it simply sees more pages. Stop early with `break`.
 * For items rather than pages, see `session.items`.
 *
 * @example
 * for await (const page of session.pages.messages({ max_bytes: 65536 }))
 *   render(page.messages);
 */
export class SessionPages {
  readonly #read: SessionRead;

  constructor(read: SessionRead) {
    this.#read = read;
  }

  /** The transcript, oldest first; messages are never split. */
  messages(query: PageQuery = {}): AsyncGenerator<MessagesResponse> {
    return follow(query.cursor, (cursor) =>
      this.#read("/messages", MessagesResponseSchema(), { ...query, cursor })
    );
  }

  /**
   * Retained events with seq > `after`, up to the newest when the read
   * ends. A page ends the read only when it was neither cut by bytes
   * (`truncated`) nor full: a page shorter than its limit may just have
   * met the byte budget.
   */
  async *events(
    after = 0,
    query: EventsPageQuery = {}
  ): AsyncGenerator<EventsResponse> {
    const limit = query.limit ?? EVENTS_PAGE.default;
    for (let from = after; ; ) {
      const page = await this.#read("/events", EventsResponseSchema(), {
        after: from,
        limit,
        max_bytes: query.max_bytes
      });
      yield page;
      if (page.events.length === 0) return;
      if (!page.truncated && page.events.length < limit) return;
      if (page.next_after <= from) throw stuck(String(from));
      from = page.next_after;
    }
  }

  /** Store keys in creation order, with their entry and object counts. */
  keys(query: PageQuery = {}): AsyncGenerator<StoreKeysResponse> {
    return follow(query.cursor, (cursor) =>
      this.#read("/environment/keys", StoreKeysResponseSchema(), {
        ...query,
        cursor
      })
    );
  }

  /** The typed state, whole values in the state's key order. */
  state(query: Omit<PageQuery, "limit"> = {}): AsyncGenerator<StateResponse> {
    return follow(query.cursor, (cursor) =>
      this.#read("/state", StateResponseSchema(), { ...query, cursor })
    );
  }

  /**
   * The whole store, key by key. An entry a page holds in part carries
   * `objects_from`/`object_count`, and the next page goes on with it;
   * `session.items.store()` joins them.
   */
  store(query: PageQuery = {}): AsyncGenerator<StorePageResponse> {
    return follow(query.cursor, (cursor) =>
      this.#read("/environment", StorePageResponseSchema(), {
        ...query,
        cursor
      })
    );
  }

  /** The entries under one key, oldest first, big ones in parts (`session.items.entries` joins them). */
  entries(
    tool: string,
    name: string,
    query: PageQuery = {}
  ): AsyncGenerator<StoreEntriesResponse> {
    return follow(query.cursor, (cursor) =>
      this.#read("/environment", StoreEntriesResponseSchema(), {
        ...query,
        tool,
        name,
        cursor
      })
    );
  }

  /**
   * One entry's parts; a negative index counts from the end. After the
   * first page the entry's own index is read on, so an entry added
   * meanwhile cannot shift `-1` onto another one.
   */
  async *entry(
    tool: string,
    name: string,
    index: number,
    query: Omit<PageQuery, "limit"> = {}
  ): AsyncGenerator<StoreEntryResponse> {
    let at = index;
    yield* follow(query.cursor, async (cursor) => {
      const page = await this.#read(
        "/environment",
        StoreEntryResponseSchema(),
        {
          ...query,
          tool,
          name,
          index: at,
          cursor
        }
      );
      at = page.entry.index;
      return page;
    });
  }
}
