/** @module The reads of a session: one page, every page (`pages`), every item (`items`), or a whole value. */

import type * as z from "zod";
import {
  type EventsResponse,
  EventsResponseSchema,
  FrameResponseSchema,
  MessagesResponseSchema,
  type RunStatus,
  RunStatusSchema,
  SessionStatusSchema,
  type StateResponse,
  type StoreEntriesResponse,
  StoreEntriesResponseSchema,
  type StoreEntryResponse,
  StoreEntryResponseSchema,
  type StoreKeysResponse,
  type StorePageResponse,
  StorePageResponseSchema
} from "../protocol";
import {
  type ModelCall,
  type ModelCallsResponse,
  ModelCallsResponseSchema
} from "../protocol/model-calls";
import { EntryJoiner, type WholeEntry } from "./entry-parts";
import { SessionItems } from "./items";
import {
  type EventsPageQuery,
  type PageQuery,
  SessionPages,
  type SessionRead
} from "./pages";

const seg = encodeURIComponent;

/**
 * What every session handle can read; `RoostSession` adds the mutations.
 * Three ways to read, from raw to whole: a method that answers one page
 * (`messages`, `environment`, `events`), the `pages` and `items`
 * iterators that follow the cursors, and methods that return a whole
 * value however many pages it takes (`state`, `keys`, `entry`).
 */
export class SessionReads {
  readonly #read: SessionRead;
  /** Every paged read as an async iterator of pages, cursors followed to the end. */
  readonly pages: SessionPages;
  /** The same reads item by item: each message, event, key, or whole entry once, in order. */
  readonly items: SessionItems;

  constructor(read: SessionRead) {
    this.#read = read;
    this.pages = new SessionPages(read);
    this.items = new SessionItems(this.pages);
  }

  status() {
    return this.#read("", SessionStatusSchema());
  }

  /**
   * One page of the whole store: follow `next_cursor`, or use
   * `pages.store()` / `items.store()`, which do.
   */
  environment(query?: PageQuery): Promise<StorePageResponse>;
  /** One page of the entries under one tool and name (`items.entries` reads them all). */
  environment(
    query: PageQuery & { tool: string; name: string }
  ): Promise<StoreEntriesResponse>;
  /**
   * One entry, or its first part when it is larger than `max_bytes`
   * (`entry()` reads it whole); a negative index counts from the end.
   */
  environment(
    query: Omit<PageQuery, "limit"> & {
      tool: string;
      name: string;
      index: number;
    }
  ): Promise<StoreEntryResponse>;
  environment(
    query: PageQuery & { tool?: string; name?: string; index?: number } = {}
  ): Promise<StorePageResponse | StoreEntriesResponse | StoreEntryResponse> {
    const schema: z.ZodType<
      StorePageResponse | StoreEntriesResponse | StoreEntryResponse
    > =
      query.index !== undefined
        ? StoreEntryResponseSchema()
        : query.tool !== undefined
          ? StoreEntriesResponseSchema()
          : StorePageResponseSchema();
    return this.#read("/environment", schema, { ...query });
  }

  /**
   * Every store key with its entry and object counts, in creation order:
   * all the pages read (from `query.cursor`, `limit` keys and `max_bytes`
   * a page), so the answer never has a `next_cursor`. For one page, use
   * `pages.keys()`.
   */
  async keys(query: PageQuery = {}): Promise<StoreKeysResponse> {
    const keys: StoreKeysResponse["keys"] = [];
    for await (const key of this.items.keys(query)) keys.push(key);
    return { keys };
  }

  /**
   * One entry with all its objects, however many pages it takes; a
   * negative index counts from the end.
   */
  async entry(
    tool: string,
    name: string,
    index: number,
    query: Omit<PageQuery, "limit" | "cursor"> = {}
  ): Promise<WholeEntry> {
    const joiner = new EntryJoiner();
    for await (const page of this.pages.entry(tool, name, index, query)) {
      const whole = joiner.push(page.entry);
      if (whole) return whole;
    }
    throw joiner.unfinished();
  }

  /**
   * The whole typed state: a state larger than a page's `max_bytes` is
   * read page by page and put together (a value is never split). Pages
   * read while the session changes may mix before and after the change.
   */
  async state(
    query: Omit<PageQuery, "limit"> = {}
  ): Promise<StateResponse["state"]> {
    const state: StateResponse["state"] = {};
    // A state key named __proto__ is data like any other.
    for await (const page of this.pages.state(query))
      for (const [key, value] of Object.entries(page.state))
        Object.defineProperty(state, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true
        });
    return state;
  }

  /** One page of the transcript (`items.messages()` reads it all). */
  messages(query: PageQuery = {}) {
    return this.#read("/messages", MessagesResponseSchema(), { ...query });
  }

  /** The viewer's frame; the default frame holds what fits `max_bytes` of state and keys (`truncated` says it was cut). */
  frame(query: { max_bytes?: number } = {}) {
    return this.#read("/frame", FrameResponseSchema(), { ...query });
  }

  /**
   * One page of the retained events with seq > `after` (a number as the
   * second argument is the page's limit); a 410 `gone` when they were
   * trimmed, a 400 past the last seq. `items.events(after)` reads on to
   * the newest.
   */
  events(
    after = 0,
    query: number | EventsPageQuery = {}
  ): Promise<EventsResponse> {
    const page = typeof query === "number" ? { limit: query } : query;
    return this.#read("/events", EventsResponseSchema(), { after, ...page });
  }

  /**
   * One page of an episode's model calls (the current episode unless
   * `episode`): the calls made through the session's model gateway, in
   * compact form. `modelCallsOf` reads every page.
   */
  modelCalls(
    query: {
      episode?: number;
      after?: number;
      limit?: number;
      max_bytes?: number;
    } = {}
  ): Promise<ModelCallsResponse> {
    return this.#read("/model/calls", ModelCallsResponseSchema(), {
      ...query
    });
  }

  /** Every model call of an episode (the current one unless `episode`), oldest first. */
  async modelCallsOf(episode?: number): Promise<ModelCall[]> {
    const calls: ModelCall[] = [];
    for (let after = 0; ; ) {
      const page = await this.modelCalls({
        ...(episode === undefined ? {} : { episode }),
        after
      });
      calls.push(...page.calls);
      if (page.next_after === undefined) return calls;
      after = page.next_after;
    }
  }

  /** A run's status; with `waitSeconds` (≤ 60) the server waits for its end first. */
  readRun(runId: string, waitSeconds = 0): Promise<RunStatus> {
    return this.#read(`/runs/${seg(runId)}`, RunStatusSchema(), {
      wait: waitSeconds
    });
  }
}
