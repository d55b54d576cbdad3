/**
 * @module Reads of `/messages` for a transcript too large to read whole:
 * where it ends, a range of it page by page, and one message. Cursors are
 * message offsets; the server answers no count, so the end is found by
 * probing with one-message pages.
 */

import { type Credentials, sessionApi } from "./api";

export interface MessagePage {
  messages: unknown[];
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
 * Whether message `at` exists, and whether it is the last. A page of one
 * message with the smallest budget: it costs that message's bytes, and
 * says nothing of the others.
 */
const probe = async (
  s: Credentials,
  at: number
): Promise<"absent" | "last" | "inside"> => {
  const page = await readPage(s, at, 1, 1024);
  if (page.messages.length === 0) return "absent";
  return page.next_cursor === undefined ? "last" : "inside";
};

/**
 * The transcript's length, given that message `known` exists: doubling
 * steps past it until one is absent, then halving the gap. About
 * 2·log2(length − known) one-message reads.
 */
export const transcriptLength = async (
  s: Credentials,
  known: number
): Promise<number> => {
  let inside = known;
  let step = 1;
  let outside: number | undefined;
  while (outside === undefined) {
    const at = known + step;
    const found = await probe(s, at);
    if (found === "last") return at + 1;
    if (found === "absent") outside = at;
    else {
      inside = at;
      step *= 2;
    }
  }
  while (outside - inside > 1) {
    const at = Math.floor((inside + outside) / 2);
    const found = await probe(s, at);
    if (found === "last") return at + 1;
    if (found === "absent") outside = at;
    else inside = at;
  }
  return outside;
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
