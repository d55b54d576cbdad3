/** @module Roost's public API: define environments, tools and state; host them with createRoost. */

export * from "./core";
export type { AppEnv, RoostBindings } from "./http/env";
export { createRoost, type Roost, type RoostConfig } from "./roost";
export { loaderIsolates } from "./session/isolates";
