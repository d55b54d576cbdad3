/** @module Options, statuses and connection frames of `connectSession`. */

import type * as z from "zod";
import type {
  EventFrame,
  ResumeExpiredFrameSchema,
  SnapshotFrameSchema
} from "../protocol";
import type { Clock } from "./clock";
import type { FetchLike } from "./request";
import type { WebSocketConstructor } from "./websocket-like";

export type SnapshotFrame = z.infer<ReturnType<typeof SnapshotFrameSchema>>;
export type ResumeExpiredFrame = z.infer<
  ReturnType<typeof ResumeExpiredFrameSchema>
>;

/**
 * `connecting` → `open`; after a drop `reconnecting` (with the attempt and
 * delay) → `open`; `closed` for good after `close()`, a 44xx close, or when
 * `maxReconnects` ran out.
 */
export type SocketStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface StatusDetail {
  attempt?: number;
  delayMs?: number;
  code?: number;
  reason?: string;
  /**
   * With `closed` after a 44xx close: why. After a 4400 it is the
   * server's `protocol.error` (e.g. an `after` past the session's last
   * seq), with its code, message and details.
   */
  error?: Error;
}

export interface ConnectOptions {
  baseUrl: string;
  sessionId: string;
  /** The session token (sent as a subprotocol, never in the URL), or an API key. */
  token: string;
  /** Required where there is no global WebSocket (Node 20: `ws`'s). */
  WebSocket?: WebSocketConstructor;
  /**
   * Every event exactly once, in seq order. A `step.aborted` event means
   * the events of that step from `first_seq` on did not happen: drop them.
   */
  onEvent: (event: EventFrame) => void;
  /** The session as it stands: on connect, and after a resume expired. */
  onSnapshot?: (snapshot: SnapshotFrame) => void;
  onStatus?: (status: SocketStatus, detail: StatusDetail) => void;
  /** Events after the last seen seq were trimmed; a fresh snapshot follows. */
  onResumeExpired?: (frame: ResumeExpiredFrame) => void;
  /** Problems that do not stop the stream: a bad frame, a throwing handler. */
  onError?: (error: Error) => void;
  /** Start from this seq (every retained event after it) instead of a snapshot. */
  after?: number;
  clock?: Clock;
  random?: () => number;
  /** For the `/events` gap fill. */
  fetch?: FetchLike;
  /** Reconnect backoff (default 250 ms doubling to 30 s, with jitter). */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Give up after this many failed reconnects in a row (default: never). */
  maxReconnects?: number;
  /**
   * Ping interval (default 25 s; 0 turns it off). A socket that received
   * nothing for a whole interval after a ping is dropped and reconnected.
   */
  heartbeatMs?: number;
  /**
   * Acknowledge delivered events every this many (default 0: never). A
   * client that acks is closed with 4408 when it falls too far behind —
   * terminal like every 44xx close; reconnect yourself with
   * `after: socket.lastSeq` if you want to go on.
   */
  ackEvery?: number;
}
