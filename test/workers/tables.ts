/** The test worker's tables: the core's operations and routes with every layer's (test/worker.ts serves them all). */

import { routeTable } from "../../src/http/route-table";
import { CORE_ROUTES } from "../../src/http/routes";
import { allLayers } from "../../src/layers";
import { mergeLayers } from "../../src/session/layer";
import type {
  CORE_OPERATIONS,
  LayerOperations
} from "../../src/session/operations";

const layers = allLayers();

export const OPERATIONS = mergeLayers(layers)
  .operations as unknown as typeof CORE_OPERATIONS & LayerOperations;

export const ROUTE_TABLE = routeTable([
  ...CORE_ROUTES,
  ...layers.flatMap((layer) => layer.routes ?? [])
]).info;
