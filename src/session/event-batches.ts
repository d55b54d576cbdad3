/**
 * @module Packing events into WebSocket messages: the events a mutation
 * makes ready together go out as one `batch` message per socket instead
 * of one message each, which is what a socket's send costs scale with.
 */

import { utf8Length } from "../json";
import type { EventText } from "../storage/event-log";
import { MAX_EVENT_BYTES } from "./split-result";

/**
 * No batch grows past one event's own maximum, so a client that can take
 * the largest event can take any message.
 */
export const MAX_BATCH_BYTES = MAX_EVENT_BYTES;

const PREFIX = '{"type":"batch","events":[';
const SUFFIX = "]}";

/**
 * The messages for `events`, in order: a lone event goes as itself (its
 * own frame, as it always has), runs of two or more as
 * `{"type":"batch","events":[…]}` of at most MAX_BATCH_BYTES. Built from
 * the stored texts, so nothing is serialised again.
 */
export const packEvents = (events: readonly EventText[]): string[] => {
  const messages: string[] = [];
  let run: string[] = [];
  let bytes = 0;
  const close = () => {
    if (run.length === 1) messages.push(run[0]!);
    else if (run.length > 1)
      messages.push(`${PREFIX}${run.join(",")}${SUFFIX}`);
    run = [];
    bytes = PREFIX.length + SUFFIX.length;
  };
  close();
  for (const { text } of events) {
    // Three bytes per UTF-16 unit bounds the UTF-8 size without encoding;
    // the exact count is taken only near the limit. Either way `bytes`
    // never underestimates.
    const bound = text.length * 3 + 1;
    const size =
      bytes + bound <= MAX_BATCH_BYTES ? bound : utf8Length(text) + 1;
    if (run.length > 0 && bytes + size > MAX_BATCH_BYTES) close();
    run.push(text);
    bytes += size;
  }
  close();
  return messages;
};
