/** @module The typed state a page at a time: whole values in the state's key order while the budget admits them. */

import type { Environment } from "../../environment/define-environment";
import { type JsonValue, utf8Length } from "../../json";
import type { ReadBudget } from "../../protocol";
import { seedState } from "../../state/initial-state";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../../state/memory-backend";
import { State } from "../../state/state";
import type { SessionRow } from "../../storage/session-row";

/**
 * The state a read shows. Before the first reset there is no episode and
 * nothing committed: a read then shows what the first reset will seed, the
 * defaults with the state given at creation over them, as the reset seeds
 * it (before the environment's own reset, which may change it further).
 * Reads say so with `before_first_reset` (readState) or the status's
 * episode 0 (a socket's snapshot).
 */
export const stateToRead = (
  committed: { get(key: string): unknown },
  environment: Environment,
  row: SessionRow
): { get(key: string): unknown } => {
  if (row.episode !== 0 || row.initialState === undefined) return committed;
  const seeded = new State(
    environment.state,
    new MemoryStateBackend(),
    new MemoryTranscriptBackend()
  );
  try {
    seedState(seeded, row.initialState);
  } catch {
    // Checked at creation; a later deployment's schema may refuse it, and
    // the reset will say so. A read still answers, with the defaults.
    return committed;
  }
  return seeded;
};

/**
 * Keys are few (the state's schema names them) but a value may be a
 * megabyte. The state's `messages` is the transcript, read on its own
 * route; the hidden store's page skips nothing.
 */
export const statePage = (
  state: { get(key: string): unknown },
  keys: readonly string[],
  from: number,
  budget: ReadBudget,
  skip: string | undefined = "messages"
): { values: Record<string, JsonValue>; next?: number } => {
  const values: Record<string, JsonValue> = {};
  for (let i = from; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === skip) continue;
    const value = state.get(key) as JsonValue | undefined;
    if (value === undefined) continue;
    if (!budget.take(utf8Length(JSON.stringify(value)) + utf8Length(key) + 4))
      return { values, next: i };
    // A state key named __proto__ is data like any other.
    Object.defineProperty(values, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true
    });
  }
  return { values };
};
