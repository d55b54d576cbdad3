/** @module The public routes: health, the environments, and the OpenAPI document. */

import * as z from "zod";
import {
  EnvironmentsResponseSchema,
  HealthResponseSchema
} from "../../protocol";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { errors, jsonContent } from "../route-kit";

export const healthRoute = route(
  {
    method: "get",
    path: "/health",
    tags: ["meta"],
    summary: "Whether the worker is up"
  },
  {
    responses: () => ({
      200: jsonContent(HealthResponseSchema(), "The worker is up.")
    })
  }
);

export const environmentsRoute = route(
  {
    method: "get",
    path: "/v1/environments",
    tags: ["meta"],
    summary: "The environments sessions can be created from",
    description: "Each with its task, state and tool schemas."
  },
  {
    responses: () => ({
      200: jsonContent(
        EnvironmentsResponseSchema(),
        "Every registered environment."
      ),
      ...errors(500)
    })
  }
);

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
