/** @module Every route of the API, in the order the OpenAPI document shows them: the one list the app registers, the route table lists and the OpenAPI document shows. */

import type { RouteEntry } from "../define-route";
import { aviaryRoutes } from "./aviary";
import { chatRoutes } from "./chat";
import { eventRoutes } from "./events";
import { mcpRoutes } from "./mcp";
import { metaRoutes } from "./meta";
import { openEnvRoutes } from "./openenv";
import { openEnvHttpRoutes } from "./openenv-http";
import { openEnvTaskRoutes } from "./openenv-tasks";
import { rescoreRoutes } from "./rescore";
import { episodeRoutes } from "./reset-step";
import { runRoutes } from "./runs";
import { sessionRoutes } from "./sessions";
import { stateRoutes } from "./state";
import { storeEditRoutes } from "./store-edit";
import { storeReadRoutes } from "./store-read";
import { taskStatsRoutes } from "./task-stats";
import { tokenRoutes } from "./tokens";
import { toolRoutes } from "./tools";

export const ROUTES: readonly RouteEntry[] = [
  ...metaRoutes,
  ...taskStatsRoutes,
  ...sessionRoutes,
  ...tokenRoutes,
  ...episodeRoutes,
  ...rescoreRoutes,
  ...toolRoutes,
  ...storeReadRoutes,
  ...eventRoutes,
  ...storeEditRoutes,
  ...stateRoutes,
  ...runRoutes,
  ...chatRoutes,
  ...mcpRoutes,
  ...aviaryRoutes,
  ...openEnvRoutes,
  ...openEnvHttpRoutes,
  ...openEnvTaskRoutes
];
