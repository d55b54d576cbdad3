/**
 * @module Reads of `/messages` for a transcript too large to read whole:
 * a range of it page by page, and one message. Cursors are message
 * offsets; every page says how many messages there are (`total`).
 */

import { type Credentials, sessionApi } from "./api";

export interface MessagePage {
  messages: unknown[];
  total: number;
  next_cursor?: string;
  truncated?: true;
}

/** Messages per request; the server's byte budget (1 MiB) cuts pages sooner. */
export const PAGE_MESSAGES = 1000;

export const readPage = (
  s: Credentials,
  from: number,
  limit = PAGE_MESSAGES,
  maxBytes?: number
): Promise<MessagePage> => {
  const q = new URLSearchParams({ limit: String(limit) });
  if (from > 0) q.set("cursor", String(from));
  if (maxBytes !== undefined) q.set("max_bytes", String(maxBytes));
  return sessionApi<MessagePage>(s, "GET", `/messages?${q}`);
};

/**
 * Messages `from` up to `to` (or to the end when `to` is absent), a page
 * at a time: `onPage` gets each page's messages with the index of the
 * first. Stops early when `onPage` answers false.
 */
export const readRange = async (
  s: Credentials,
  from: number,
  to: number | undefined,
  onPage: (messages: unknown[], first: number) => boolean
): Promise<void> => {
  let at = from;
  while (to === undefined || at < to) {
    const limit =
      to === undefined ? PAGE_MESSAGES : Math.min(PAGE_MESSAGES, to - at);
    const page = await readPage(s, at, limit);
    if (page.messages.length > 0 && !onPage(page.messages, at)) return;
    at += page.messages.length;
    if (page.next_cursor === undefined) return;
  }
};

/** One message by its index, for "show all" of a message drawn cut. */
export const readMessage = async (
  s: Credentials,
  index: number
): Promise<unknown> => (await readPage(s, index, 1)).messages[0];
