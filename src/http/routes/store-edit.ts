/** @module Editing a session's environment store: add, replace and remove under `[tool][name]`. */

import { lazy } from "../../lazy";
import {
  StoreEntryParamsSchema,
  StoreEntryResponseSchema,
  StoreKeyParamsSchema,
  StoreRemoveResponseSchema,
  StoreWriteRequestSchema
} from "../../protocol";
import { jsonBody } from "../body";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { runOperation } from "../gateway";
import {
  errors,
  jsonContent,
  jsonRequest,
  MUTATION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";

const KEY_PATH = "/v1/sessions/{id}/environment/{tool}/{name}";
const ENTRY_PATH = `${KEY_PATH}/{index}`;
// OpenAPI has no optional path segment, so the key routes take no index.
const KeyParamsSchema = lazy(() =>
  StoreKeyParamsSchema().omit({ index: true })
);

const common = {
  tags: ["environment store"],
  security: SESSION_SECURITY
};

export const storeAddRoute = route(
  {
    ...common,
    method: "post",
    path: KEY_PATH,
    summary: "Add an entry",
    description:
      "Appends {objects, metadata} under [tool][name]. Accepts an Idempotency-Key.",
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: KeyParamsSchema(),
      body: jsonRequest(StoreWriteRequestSchema())
    }),
    responses: () => ({
      201: jsonContent(StoreEntryResponseSchema(), "The new entry."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const storeReplaceAllRoute = route(
  {
    ...common,
    method: "put",
    path: KEY_PATH,
    summary: "Replace a key's entries with one",
    description:
      "The whole list under [tool][name] becomes one entry. Accepts an Idempotency-Key.",
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: KeyParamsSchema(),
      body: jsonRequest(StoreWriteRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(StoreEntryResponseSchema(), "The entry now stored."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const storeReplaceOneRoute = route(
  {
    ...common,
    method: "put",
    path: ENTRY_PATH,
    summary: "Replace one entry",
    description:
      "Negative indexes count from the end. Accepts an Idempotency-Key.",
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: StoreEntryParamsSchema(),
      body: jsonRequest(StoreWriteRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(StoreEntryResponseSchema(), "The entry now stored."),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const storeRemoveAllRoute = route(
  {
    ...common,
    method: "delete",
    path: KEY_PATH,
    summary: "Remove a key and all its entries",
    description: "Accepts an Idempotency-Key."
  },
  {
    request: () => ({ params: KeyParamsSchema() }),
    responses: () => ({
      200: jsonContent(
        StoreRemoveResponseSchema(),
        "How many entries were removed."
      ),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const storeRemoveOneRoute = route(
  {
    ...common,
    method: "delete",
    path: ENTRY_PATH,
    summary: "Remove one entry",
    description:
      "Negative indexes count from the end. Accepts an Idempotency-Key."
  },
  {
    request: () => ({ params: StoreEntryParamsSchema() }),
    responses: () => ({
      200: jsonContent(
        StoreRemoveResponseSchema(),
        "How many entries were removed."
      ),
      ...errors(...MUTATION_ERRORS)
    })
  }
);

export const storeEditRoutes: readonly RouteEntry[] = [
  defineRoute(storeAddRoute, async (c) => {
    const { tool, name } = c.req.valid("param");
    const body = c.req.valid("json");
    const value = await runOperation(c, "addEntry", { tool, name, ...body });
    return c.json(value, 201);
  }),

  defineRoute(storeReplaceAllRoute, async (c) => {
    const { tool, name } = c.req.valid("param");
    const body = c.req.valid("json");
    const value = await runOperation(c, "replaceEntry", {
      tool,
      name,
      ...body
    });
    return c.json(value, 200);
  }),

  defineRoute(storeReplaceOneRoute, async (c) => {
    const { tool, name, index } = c.req.valid("param");
    const body = c.req.valid("json");
    const value = await runOperation(c, "replaceEntry", {
      tool,
      name,
      index,
      ...body
    });
    return c.json(value, 200);
  }),

  defineRoute(storeRemoveAllRoute, async (c) => {
    const { tool, name } = c.req.valid("param");
    const value = await runOperation(c, "removeEntry", { tool, name });
    return c.json(value, 200);
  }),

  defineRoute(storeRemoveOneRoute, async (c) => {
    const { tool, name, index } = c.req.valid("param");
    const value = await runOperation(c, "removeEntry", { tool, name, index });
    return c.json(value, 200);
  })
];
