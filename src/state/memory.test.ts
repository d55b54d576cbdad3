/** @module Runs the state contract over the in-memory backends. */

import { MemoryStateBackend, MemoryTranscriptBackend } from "./memory-backend";
import { runStateContract } from "./state.case";

runStateContract("memory", () => ({
  backend: new MemoryStateBackend(),
  transcript: new MemoryTranscriptBackend()
}));
