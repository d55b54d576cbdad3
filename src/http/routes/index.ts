/** @module The core's routes, in the order the OpenAPI document shows them: a worker's layers add theirs after them (layer.ts). */

import type { RouteEntry } from "../define-route";
import { eventRoutes } from "./events";
import { metaRoutes } from "./meta";
import { episodeRoutes } from "./reset-step";
import { runRoutes } from "./runs";
import { sessionRoutes } from "./sessions";
import { stateRoutes } from "./state";
import { storeEditRoutes } from "./store-edit";
import { storeReadRoutes } from "./store-read";
import { tokenRoutes } from "./tokens";
import { toolRoutes } from "./tools";

export const CORE_ROUTES: readonly RouteEntry[] = [
  ...metaRoutes,
  ...sessionRoutes,
  ...tokenRoutes,
  ...episodeRoutes,
  ...toolRoutes,
  ...storeReadRoutes,
  ...eventRoutes,
  ...storeEditRoutes,
  ...stateRoutes,
  ...runRoutes
];
