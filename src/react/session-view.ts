/** @module What `useSession` shows of a session: one immutable object, replaced slice by slice. */

import type { SocketStatus } from "../client/socket-options";
import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { EventFrame, EventOf, KeyInfo, SessionStatus } from "../protocol";

/**
 * Every slice keeps its identity until it changes, and a changed array
 * keeps the identity of the items it had: a `memo` row of an old message
 * is never rendered again because a new one arrived.
 */
export interface SessionView {
  connection: SocketStatus;
  /** The session's status as of the last snapshot, kept up to date by `step` and `reset` events. */
  status: SessionStatus | undefined;
  /** Typed state values; undefined before the first snapshot. */
  state: Record<string, JsonValue> | undefined;
  keys: readonly KeyInfo[];
  /** The episode's transcript, oldest first. */
  messages: readonly Message[];
  /** Events received since connecting (the newest `maxEvents`), minus aborted ones. */
  events: readonly EventFrame[];
  /** The newest event seen (or the snapshot's). */
  lastSeq: number | undefined;
  /** The last committed step's `step` event. */
  lastStep: EventOf<"step"> | undefined;
  /** The last error that did not stop the stream (a bad frame, a failed history read). */
  error: Error | undefined;
}

export const EMPTY_VIEW: SessionView = {
  connection: "connecting",
  status: undefined,
  state: undefined,
  keys: [],
  messages: [],
  events: [],
  lastSeq: undefined,
  lastStep: undefined,
  error: undefined
};
