/** @module `session.items`: every paged read as an async iterator of its items — each message, event, key or whole entry once, in order. */

import type { Message } from "../messages/schema";
import type { EventFrame, KeyInfo, LocatedEntry } from "../protocol";
import { RoostClientError } from "./client-error";
import { EntryJoiner, type WholeEntry } from "./entry-parts";
import type { EventsPageQuery, PageQuery, SessionPages } from "./pages";

/**
 * The items of `session.pages`, page boundaries hidden: an entry a page
 * cut into parts is handed out once, whole, when its last part is read
 * (a gap between parts throws `inconsistent_pages` rather than giving a
 * wrong entry). Pages are read as the loop asks for items, so memory holds
 * one page at a time, plus the entry being joined.
 *
 * @example
 * for await (const entry of session.items.entries("search", "hits", { max_bytes: 65536 }))
 *   console.log(entry.index, entry.objects.length);
 */
export class SessionItems {
  readonly #pages: SessionPages;

  constructor(pages: SessionPages) {
    this.#pages = pages;
  }

  async *messages(query: PageQuery = {}): AsyncGenerator<Message> {
    for await (const page of this.#pages.messages(query)) yield* page.messages;
  }

  /** Retained events with seq > `after`, in seq order (a trimmed start is a 410 `gone`). */
  async *events(
    after = 0,
    query: EventsPageQuery = {}
  ): AsyncGenerator<EventFrame> {
    for await (const page of this.#pages.events(after, query))
      yield* page.events;
  }

  async *keys(query: PageQuery = {}): AsyncGenerator<KeyInfo> {
    for await (const page of this.#pages.keys(query)) yield* page.keys;
  }

  /** The entries under one key, each whole, oldest first. */
  async *entries(
    tool: string,
    name: string,
    query: PageQuery = {}
  ): AsyncGenerator<WholeEntry> {
    const joiner = new EntryJoiner();
    let last: number | undefined;
    for await (const page of this.#pages.entries(tool, name, query)) {
      for (const part of page.entries) {
        const whole = joiner.push(part);
        if (whole === undefined) continue;
        if (last !== undefined && whole.index !== last + 1)
          throw skipped(whole, last);
        last = whole.index;
        yield whole;
      }
    }
    joiner.finish();
  }

  /**
   * Every entry of the store, each whole, key by key in creation order
   * and oldest first within a key. Always from the start: the store's
   * pages do not carry entry indexes, so they are counted here.
   */
  async *store(
    query: Omit<PageQuery, "cursor"> = {}
  ): AsyncGenerator<WholeEntry> {
    // Per key, because a page's keys come back in the object's order, which
    // for names of digits only is not the order the server wrote them in.
    const joiners = new Map<string, EntryJoiner>();
    const started = new Map<string, number>();
    for await (const page of this.#pages.store(query)) {
      for (const [tool, names] of Object.entries(page.store)) {
        for (const [name, entries] of Object.entries(names)) {
          const key = JSON.stringify([tool, name]);
          for (const entry of entries) {
            const next = started.get(key) ?? 0;
            const continues = (entry.objects_from ?? 0) > 0;
            // A continued part belongs to the entry begun last under its key.
            const index = continues ? next - 1 : next;
            if (!continues) started.set(key, next + 1);
            const joiner = joiners.get(key) ?? new EntryJoiner();
            const part: LocatedEntry = { ...entry, tool, name, index };
            const whole = joiner.push(part);
            if (joiner.pending) joiners.set(key, joiner);
            else joiners.delete(key);
            if (whole !== undefined) yield whole;
          }
        }
      }
    }
    for (const joiner of joiners.values()) joiner.finish();
  }
}

const skipped = (entry: WholeEntry, last: number): RoostClientError =>
  new RoostClientError(
    "inconsistent_pages",
    `${entry.tool}/${entry.name} went from entry ${last} to entry ${entry.index}. Did the session change while it was read? Read again from the start.`,
    0,
    { tool: entry.tool, name: entry.name, after: last, next: entry.index }
  );
