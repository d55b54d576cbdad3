/** @module Reading a session's environment store: a page of everything, one key's entries, or one entry. */

import * as z from "zod";
import {
  SessionParamsSchema,
  StoreEntriesResponseSchema,
  StoreEntryResponseSchema,
  StoreKeysQuerySchema,
  StoreKeysResponseSchema,
  StorePageResponseSchema,
  StoreQuerySchema
} from "../../protocol";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { runOperation } from "../gateway";
import {
  errors,
  jsonContent,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";

export const storeReadRoute = route(
  {
    method: "get",
    path: "/v1/sessions/{id}/environment",
    tags: ["environment store"],
    summary: "Read the environment store",
    description:
      "Without tool and name: a page of the whole store ({store, next_cursor?, truncated?}). With tool and name: that key's entries ({entries, next_cursor?, truncated?}). With index too: one entry ({entry, next_cursor?, truncated?}); negative indexes count from the end. Every page holds at most limit entries and about max_bytes of JSON (1 MiB by default, at most 4 MiB): an entry past the budget comes in parts, each marked with objects_from and object_count, and next_cursor goes on inside it.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: StoreQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(
        z.union([
          StorePageResponseSchema(),
          StoreEntriesResponseSchema(),
          StoreEntryResponseSchema()
        ]),
        "A page of the store, a key's entries, or one entry."
      ),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const storeKeysRoute = route(
  {
    method: "get",
    path: "/v1/sessions/{id}/environment/keys",
    tags: ["environment store"],
    summary: "List the store's keys",
    description:
      "Every tool and name with its entry and object counts, never the entries: what a viewer shows as the store's tree. In creation order, limit keys (1000 by default) and max_bytes at most a page; next_cursor reads on.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: StoreKeysQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(
        StoreKeysResponseSchema(),
        "The keys with their counts."
      ),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const storeReadRoutes: readonly RouteEntry[] = [
  defineRoute(storeReadRoute, async (c) => {
    const value = await runOperation(c, "readStore", c.req.valid("query"));
    return c.json(value, 200);
  }),
  defineRoute(storeKeysRoute, async (c) => {
    const value = await runOperation(c, "storeKeys", c.req.valid("query"));
    return c.json(value, 200);
  })
];
