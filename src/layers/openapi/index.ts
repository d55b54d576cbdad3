/**
 * @module The OpenAPI layer: `GET /openapi.json`, the OpenAPI 3.1 document
 * of every route the worker serves, generated from the routes' zod
 * schemas. A worker without it validates its requests the same and loads
 * no document generator.
 */

import * as z from "zod";
import { defineRoute, route } from "../../http/define-route";
import type { Layer } from "../../http/layer";
import { jsonContent } from "../../http/route-kit";
import { apiDocument } from "./document";

export const openapiRoute = route(
  {
    method: "get",
    path: "/openapi.json",
    tags: ["meta"],
    summary: "This document (OpenAPI 3.1)"
  },
  {
    responses: () => ({
      200: jsonContent(
        z.record(z.string(), z.unknown()),
        "The OpenAPI 3.1 document of this API."
      )
    })
  }
);

export const openapi = (): Layer => ({
  name: "openapi",
  routes: [defineRoute(openapiRoute, (c) => c.json(apiDocument(c), 200))]
});
