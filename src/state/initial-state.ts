/**
 * @module Initial state (Haystack's `State(schema, data)`): values a session
 * or a reset starts from, each stored as a write would store it.
 */

import { RoostError } from "../errors";
import type { StateDefinition } from "./define-state";
import { replaceValues } from "./handlers";
import { MemoryStateBackend, MemoryTranscriptBackend } from "./memory-backend";
import { State } from "./state";
import type { StateAccess } from "./types";

/** What `state` in a create or reset body holds: key → value. */
export type InitialState = Record<string, unknown>;

/** Options that seeding shares with every write. */
export interface SeedOptions {
  maxValueBytes?: number;
}

/**
 * Writes each value over its key's default, through the same checks as
 * any write (the key in the schema, the value valid for its zod type, its
 * size), replacing rather than merging: the value given is the value the
 * episode starts with. Throws a RoostError on the first bad key; callers
 * run it where a throw changes nothing.
 */
export const seedState = (state: StateAccess, values: InitialState): void => {
  for (const [key, value] of Object.entries(values)) {
    if (key === "messages") {
      throw new RoostError(
        "invalid_request",
        "state cannot seed messages: the transcript starts with the reset's observations.",
        { field: "state.messages" }
      );
    }
    state.set(key, value, { handler: replaceValues });
  }
};

/**
 * Checks initial state against a definition without a session: the
 * worker refuses a bad one before it creates anything.
 */
export const checkInitialState = (
  definition: StateDefinition,
  values: InitialState,
  options: SeedOptions = {}
): void => {
  seedState(
    new State(
      definition,
      new MemoryStateBackend(),
      new MemoryTranscriptBackend(),
      options
    ),
    values
  );
};
