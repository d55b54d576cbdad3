/** @module The public routes: health and the environments (the OpenAPI document is the `openapi()` layer's). */

import type { Registry } from "../../environment/registry";
import {
  type EnvironmentInfo,
  EnvironmentsResponseSchema,
  HealthResponseSchema
} from "../../protocol";
import { createModelResolver, type ModelResolver } from "../../session/models";
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
    description:
      "Each with its task, state and tool schemas; one with a decision tree also with its tree and the models its runs may name on this deployment, the default (what a run that names none gets) first."
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

/**
 * The environments, each with a tree naming the models its runs may ask
 * for here, so a client can say which one answers (a scripted stand-in or
 * a configured model) before it asks. A setting that cannot be read (a bad
 * ROOST_MODEL_MODE) leaves the models out rather than failing the listing:
 * runs report that error themselves.
 */
const describeWithModels = (
  registry: Registry,
  models: ModelResolver
): EnvironmentInfo[] => {
  const infos = registry
    .describe()
    .map((info) => ({ ...info, tools: [...info.tools] }));
  try {
    return infos.map((info) =>
      info.tree === undefined
        ? info
        : { ...info, models: models.available(registry.get(info.name)) }
    );
  } catch (error) {
    console.error("Roost: the models could not be listed", error);
    return infos;
  }
};

export const metaRoutes: readonly RouteEntry[] = [
  defineRoute(healthRoute, (c) => c.json({ status: "ok" as const }, 200)),
  defineRoute(environmentsRoute, (c) =>
    c.json(
      {
        environments: describeWithModels(
          c.get("registry"),
          createModelResolver(
            c.env as unknown as Record<string, unknown>,
            c.get("models")
          )
        )
      },
      200
    )
  )
];
