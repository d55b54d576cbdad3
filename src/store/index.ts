/** @module The environment store, the hidden store and Results: the public names of `src/store`. */

export {
  type Mapping,
  mapObjects,
  mappedFields
} from "../protocol/map-objects";
export { type EntryDisplay, PAYLOAD_TYPES } from "./display";
export {
  createEnvironmentStore,
  type EnvironmentStoreOptions
} from "./environment-store";
export { fingerprint } from "./fingerprint";
export { MemoryHiddenStore } from "./hidden-store";
export { MemoryStoreBackend } from "./memory-backend";
export { readOnlyStore } from "./reader";
export {
  describeResult,
  error,
  LOG_LEVELS,
  type LogLevel,
  log,
  progress,
  type Result,
  type ResultInit,
  result,
  status,
  text,
  type Update,
  warning
} from "./result";
export type {
  AddObjectsOptions,
  AddOptions,
  Entry,
  EnvironmentReader,
  EnvironmentStore,
  HiddenStore,
  KeyInfo,
  LocatedEntry,
  ObjectFingerprint,
  ResultLike,
  StoreBackend,
  StoreJson,
  StorePage
} from "./types";
