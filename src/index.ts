/** @module Roost's public API: define environments, tools and state; host them with createRoost. */

export * from "./core";
// Writing a layer (docs/16-layers.md): its type, and what its routes and
// operations are built with.
export { defineRawRoute, defineRoute, route } from "./http/define-route";
export type { AppEnv, RoostBindings } from "./http/env";
export { gatewayTo, runOperation, sessionOf } from "./http/gateway";
export type { AccessTokenCheck, Layer } from "./http/layer";
export { createRoost, type Roost, type RoostConfig } from "./roost";
export { loaderIsolates } from "./session/isolates";
export type { SessionLayer } from "./session/layer";
export type { LayerOperations } from "./session/operations";
export { defineOperation } from "./session/operations/define";
