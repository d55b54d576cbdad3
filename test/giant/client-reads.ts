/**
 * @module The giant session through the TypeScript client's iterators: the
 * one read the done-when names that this folder does not make yet, because
 * the client's cursor-following iterators are written on another branch.
 * Once they are merged, this should read the whole store and the transcript
 * through them (each object into `store.take`, each message into
 * `transcript.take`, then both `finish()`), and a test in
 * giant-session.test.ts should call it like the other reads.
 */

import type { StoreSequence } from "./store-sequence";
import type { TranscriptSequence } from "./transcript-sequence";
import type { SessionRef } from "./wire";

export const readWithClientIterators = async (
  _baseUrl: string,
  _session: SessionRef,
  _store: StoreSequence,
  _transcript: TranscriptSequence
): Promise<void> => {
  throw new Error(
    "Not written yet: fill this in with the client's iterators (see the module comment)."
  );
};
