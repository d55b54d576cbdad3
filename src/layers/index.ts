/**
 * @module Every layer, for a worker that serves everything (the demo
 * worker, `npm start`), and the Durable Object classes two of them keep
 * (`TaskStats`, `OAuthLedger`: export them, bind them as TASK_STATS and
 * OAUTH_LEDGER). A worker of its own names the layers it wants from their
 * own modules instead, and carries no other.
 */

import type { Layer } from "../http/layer";
import { aviary } from "./aviary";
import { branching } from "./branching";
import { chat } from "./chat";
import { mcp } from "./mcp";
import { modelGateway } from "./model";
import { oauth } from "./oauth";
import { openapi } from "./openapi";
import { openenv } from "./openenv";
import { rescore } from "./rescore";
import { taskStats } from "./task-stats";

export { OAuthLedger } from "./oauth";
export { TaskStats } from "./task-stats";
export {
  aviary,
  branching,
  chat,
  mcp,
  modelGateway,
  oauth,
  openapi,
  openenv,
  rescore,
  taskStats
};

/** Every capability Roost has, in the order the OpenAPI document lists their routes. */
export const allLayers = (): Layer[] => [
  openapi(),
  taskStats(),
  rescore(),
  branching(),
  chat(),
  modelGateway(),
  mcp(),
  oauth(),
  aviary(),
  openenv()
];
