/** @module The public routes: health, the environments, and the OpenAPI document. */

import { createRoute } from "@hono/zod-openapi";
import * as z from "zod";
import {
  EnvironmentsResponseSchema,
  HealthResponseSchema
} from "../../protocol";
import { defineRoute, type RouteEntry } from "../define-route";
import { errors, jsonContent } from "../route-kit";

export const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["meta"],
  summary: "Whether the worker is up",
  responses: { 200: jsonContent(HealthResponseSchema, "The worker is up.") }
});

export const environmentsRoute = createRoute({
  method: "get",
  path: "/v1/environments",
  tags: ["meta"],
  summary: "The environments sessions can be created from",
  description: "Each with its task, state and tool schemas.",
  responses: {
    200: jsonContent(
      EnvironmentsResponseSchema,
      "Every registered environment."
    ),
    ...errors(500)
  }
});

export const openapiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["meta"],
  summary: "This document (OpenAPI 3.1)",
  responses: {
    200: jsonContent(
      z.record(z.string(), z.unknown()),
      "The OpenAPI 3.1 document of this API."
    )
  }
});

export const metaRoutes: readonly RouteEntry[] = [
  defineRoute(healthRoute, (c) => c.json({ status: "ok" as const }, 200)),
  defineRoute(environmentsRoute, (c) =>
    c.json(
      {
        environments: c
          .get("registry")
          .describe()
          .map((info) => ({ ...info, tools: [...info.tools] }))
      },
      200
    )
  ),
  defineRoute(openapiRoute, (c) => c.json(c.get("openapi")(), 200))
];
