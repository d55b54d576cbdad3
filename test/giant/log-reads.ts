/**
 * @module The retained event log, read twice: over HTTP (`/events`, page by
 * page) and as the session socket's resume replays it (`?after=`). Each
 * event is kept as its seq, type and a digest of its JSON, so two reads can
 * be compared event for event without holding 16 MB twice.
 */

import { createHash } from "node:crypto";
import WebSocket from "ws";
import { createSignal } from "../shared/signal";
import { MAX_RESPONSE_BYTES } from "./plan";
import { count, newTally, query, type Tally } from "./tally";
import type { SessionRef, Wire } from "./wire";

export interface SeenEvent {
  seq: number;
  type: string;
  digest: string;
  /** Bytes of its JSON. */
  bytes: number;
}

const seen = (event: { seq: number; type: string }): SeenEvent => {
  const text = JSON.stringify(event);
  return {
    seq: event.seq,
    type: event.type,
    digest: createHash("sha1").update(text).digest("hex"),
    bytes: Buffer.byteLength(text)
  };
};

/** The first retained seq: `/events?after=0` answers 410 with it once the log was trimmed. */
export const oldestRetained = async (
  wire: Wire,
  s: SessionRef
): Promise<number> => {
  const path = `/v1/sessions/${s.id}/events?after=0&limit=1`;
  const answer = await wire.send("GET", path, { token: s.token });
  if (answer.status === 200) {
    const { events } = JSON.parse(answer.text) as { events: { seq: number }[] };
    return events[0]?.seq ?? 1;
  }
  const body = JSON.parse(answer.text) as {
    error: { code: string; details?: { oldest_seq?: number } };
  };
  const oldest = body.error.details?.oldest_seq;
  if (answer.status !== 410 || oldest === undefined) {
    throw new Error(`GET ${path} → ${answer.status}: ${answer.text}`);
  }
  return oldest;
};

/** `GET …/events` from `after` to the end: a client reads on while a page is cut or full. */
export const readEvents = async (
  wire: Wire,
  s: SessionRef,
  after: number,
  options: { maxBytes?: number; limit?: number } = {}
): Promise<{ events: SeenEvent[]; tally: Tally }> => {
  const limit = options.limit ?? 1000;
  const events: SeenEvent[] = [];
  const tally = newTally();
  let at = after;
  for (;;) {
    const { value, bytes } = await wire.page<{
      events: { seq: number; type: string }[];
      next_after: number;
      truncated?: true;
    }>(s, `/events${query({ after: at, limit, max_bytes: options.maxBytes })}`);
    count(tally, bytes, value.truncated);
    events.push(...value.events.map(seen));
    at = value.next_after;
    if (!value.truncated && value.events.length < limit) break;
  }
  return { events, tally };
};

/**
 * The socket's resume from `after`: every event it replays up to `last`,
 * and the largest message it sent. Anything but events (an expiry, an
 * error, a close) fails the read.
 */
export const resumeOverSocket = async (
  s: SessionRef,
  after: number,
  last: number
): Promise<{ events: SeenEvent[]; messages: number; largest: number }> => {
  const ws = new WebSocket(`${s.wsUrl}?after=${after}`, [
    "roost.v1",
    `roost.token.${s.token}`
  ]);
  const events: SeenEvent[] = [];
  const signal = createSignal();
  let messages = 0;
  let largest = 0;
  let failure: string | undefined;
  ws.on("message", (data: Buffer) => {
    messages++;
    largest = Math.max(largest, data.byteLength);
    if (data.byteLength > MAX_RESPONSE_BYTES) {
      failure = `a socket message of ${data.byteLength} bytes`;
    }
    const message = JSON.parse(data.toString("utf8")) as {
      type: string;
      seq?: number;
      events?: { seq: number; type: string }[];
    };
    const frames =
      message.type === "batch" ? (message.events ?? []) : [message];
    for (const frame of frames) {
      if (frame.seq === undefined) failure ??= `a ${frame.type} frame`;
      else events.push(seen(frame as { seq: number; type: string }));
    }
    signal.notify();
  });
  ws.on("close", (code) => {
    failure ??= `the socket closed with ${code}`;
    signal.notify();
  });
  ws.on("error", (error) => {
    failure ??= `the socket failed: ${error.message}`;
    signal.notify();
  });
  try {
    await signal.until(() => events.at(-1)?.seq === last, {
      timeoutMs: 300_000,
      what: `the replay up to seq ${last} (at ${events.at(-1)?.seq})`,
      stop: () => failure
    });
  } finally {
    ws.close();
  }
  return { events, messages, largest };
};

/** Throws unless `events` are exactly the seqs `from` … `to`, once each, in order. */
export const checkContiguous = (
  events: readonly SeenEvent[],
  from: number,
  to: number
): void => {
  if (events.length !== to - from + 1) {
    throw new Error(
      `${events.length} events, expected ${to - from + 1} (seq ${from} … ${to}).`
    );
  }
  events.forEach((e, i) => {
    if (e.seq !== from + i) {
      throw new Error(`Event ${i} has seq ${e.seq}, expected ${from + i}.`);
    }
  });
};
