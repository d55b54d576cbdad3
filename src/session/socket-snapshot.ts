/** @module What a new socket sees first: status, state and store keys within one read budget. */

import type { JsonValue } from "../json";
import type { SessionStatus } from "../protocol";
import { READ_BYTES, ReadBudget } from "../protocol/read-budget";
import type { KeyInfo } from "../store/types";
import { sessionStatus } from "./operations/lifecycle";
import { statePage, stateToRead } from "./operations/state-page";
import type { SessionRuntime } from "./runtime";

export interface SocketSnapshot {
  status: SessionStatus;
  state: Record<string, JsonValue>;
  keys: KeyInfo[];
  last_seq: number;
  oldest_seq: number;
  truncated?: true;
  state_next_cursor?: string;
  keys_next_cursor?: string;
}

/**
 * Status, state and store keys with counts — never entries — within one
 * read budget; what does not fit is named by cursors for the HTTP reads.
 * An agent's socket is sent no keys (`withKeys` false): the store is the
 * session's, and its keys name what the agents' tools stored.
 */
export const socketSnapshot = (
  rt: SessionRuntime,
  withKeys = true
): SocketSnapshot => {
  const status = sessionStatus(rt.shared);
  return rt.read((parts, environment, row) => {
    const budget = new ReadBudget(READ_BYTES.default);
    const state = statePage(
      stateToRead(parts.state, environment, row),
      environment.state.keys(),
      0,
      budget
    );
    // A page always holds its first key, so the keys' cursor is never "from the start".
    const keys = withKeys
      ? parts.environment.keyPage({
          limit: 10_000,
          maxBytes: Math.max(1, budget.left)
        })
      : { keys: [], nextCursor: undefined };
    const stateCursor =
      state.next === undefined ? undefined : String(state.next);
    const keysCursor = keys.nextCursor;
    return {
      status,
      state: state.values,
      keys: keys.keys,
      last_seq: rt.shared.events.lastSeq,
      oldest_seq: rt.shared.events.oldestSeq,
      ...(stateCursor || keysCursor ? { truncated: true as const } : {}),
      ...(stateCursor ? { state_next_cursor: stateCursor } : {}),
      ...(keysCursor ? { keys_next_cursor: keysCursor } : {})
    };
  });
};
