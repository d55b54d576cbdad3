/** @module Typed state: schema, handlers, the State class and its in-memory backends. */

export {
  defineState,
  type ShapeOf,
  type StateDefinition
} from "./define-state";
export {
  HANDLERS,
  type HandlerName,
  isHandlerName,
  mergeLists,
  replaceValues
} from "./handlers";
export {
  checkInitialState,
  type InitialState,
  seedState
} from "./initial-state";
export {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "./memory-backend";
export { DEFAULT_MAX_VALUE_BYTES, State, type StateOptions } from "./state";
export type { StateIssue } from "./state-errors";
export type {
  Handler,
  SetOptions,
  StateAccess,
  StateBackend,
  StateField,
  StateShape,
  StateValues,
  TranscriptBackend
} from "./types";
