/** @module The HTTP layer: the Hono app, its bindings and its route table. */

export { type AppOptions, createApp } from "./app";
export type { AppEnv, RoostBindings, RoostVariables } from "./env";
export type { AccessTokenCheck, Layer } from "./layer";
export type { RoostApp } from "./route-kit";
export {
  type RouteAuth,
  type RouteInfo,
  type RouteTable,
  routeTable
} from "./route-table";
