/** @module The HTTP layer: the Hono app, its bindings and its route table. */

export { type AppOptions, createApp } from "./app";
export type { AppEnv, RoostBindings, RoostVariables } from "./env";
export type { RoostApp } from "./route-kit";
export {
  allowedMethods,
  ROUTE_TABLE,
  type RouteAuth,
  type RouteInfo
} from "./route-table";
