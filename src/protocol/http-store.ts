/** @module Environment store routes: paged reads, add, replace and remove under `[tool][name]`. */

import * as z from "zod";
import { lazy } from "../lazy";
import {
  displayFields,
  KeyInfoSchema,
  LocatedEntrySchema,
  StoreJsonSchema
} from "./entries";
import { SessionIdSchema } from "./http-sessions";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";
import { CursorSchema, integerString, pageLimit } from "./query";
import { maxBytesParam, truncatedSchema } from "./read-budget";

/** An entry index; negative counts from the end (`-1` is the newest). */
const IndexStringSchema = lazy(() =>
  integerString({
    min: Number.MIN_SAFE_INTEGER,
    max: Number.MAX_SAFE_INTEGER
  })
);

/** `GET …/environment?tool=&name=&index=&cursor=&limit=`. */
export const StoreQuerySchema = lazy(() =>
  z
    .object({
      tool: NameSchema().optional(),
      name: NameSchema().optional(),
      index: IndexStringSchema().optional(),
      cursor: CursorSchema().optional(),
      limit: pageLimit(),
      max_bytes: maxBytesParam()
    })
    .refine((q) => (q.tool === undefined) === (q.name === undefined), {
      message: 'Give "tool" and "name" together, or neither.',
      path: ["name"]
    })
    .refine((q) => q.index === undefined || q.name !== undefined, {
      message: '"index" needs "tool" and "name".',
      path: ["index"]
    })
);
export type StoreQuery = z.infer<ReturnType<typeof StoreQuerySchema>>;
export type StoreQueryInput = z.input<ReturnType<typeof StoreQuerySchema>>;

export const StoreKeyParamsSchema = lazy(() =>
  z.object({
    id: SessionIdSchema(),
    tool: NameSchema(),
    name: NameSchema(),
    index: IndexStringSchema().optional()
  })
);
export type StoreKeyParams = z.infer<ReturnType<typeof StoreKeyParamsSchema>>;

/**
 * The same with the index required: OpenAPI has no optional path segment,
 * so `…/:name` and `…/:name/:index` are documented as two routes.
 */
export const StoreEntryParamsSchema = lazy(() =>
  StoreKeyParamsSchema().extend({
    index: IndexStringSchema()
  })
);
export type StoreEntryParams = z.infer<
  ReturnType<typeof StoreEntryParamsSchema>
>;

/** Without `tool`/`name`: a page of the whole store, in key order then entry order. */
export const StorePageResponseSchema = lazy(() =>
  z
    .object({
      store: StoreJsonSchema(),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema()
    })
    .meta({ id: "StorePageResponse", description: "A page of the store." })
);
export type StorePageResponse = z.infer<
  ReturnType<typeof StorePageResponseSchema>
>;

/** With `tool` and `name`: a page of that key's entries, oldest first. */
export const StoreEntriesResponseSchema = lazy(() =>
  z
    .object({
      entries: z.array(LocatedEntrySchema()),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema()
    })
    .meta({
      id: "StoreEntriesResponse",
      description: "Entries under one tool and name."
    })
);
export type StoreEntriesResponse = z.infer<
  ReturnType<typeof StoreEntriesResponseSchema>
>;

/** `GET …/environment/keys?cursor=&limit=&max_bytes=`. */
export const StoreKeysQuerySchema = lazy(() =>
  z.object({
    cursor: CursorSchema().optional(),
    limit: integerString({ min: 1, max: 10_000, default: 1000 }),
    max_bytes: maxBytesParam()
  })
);
export type StoreKeysQuery = z.infer<ReturnType<typeof StoreKeysQuerySchema>>;

/** Every key with its counts, never entries: a cheap table of contents, paged. */
export const StoreKeysResponseSchema = lazy(() =>
  z
    .object({
      keys: z.array(KeyInfoSchema()),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema()
    })
    .meta({
      id: "StoreKeysResponse",
      description: "The store's keys with their entry and object counts."
    })
);
export type StoreKeysResponse = z.infer<
  ReturnType<typeof StoreKeysResponseSchema>
>;

/**
 * With `index` too, and as the answer to an add or a replace. A read of an
 * entry past the page's budget holds part of it; `next_cursor` (an object
 * offset) reads on.
 */
export const StoreEntryResponseSchema = lazy(() =>
  z
    .object({
      entry: LocatedEntrySchema(),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema()
    })
    .meta({
      id: "StoreEntryResponse",
      description: "One entry, or a part of it."
    })
);
export type StoreEntryResponse = z.infer<
  ReturnType<typeof StoreEntryResponseSchema>
>;

export const StoreWriteRequestSchema = lazy(() =>
  z
    .strictObject({
      objects: z.array(JsonObjectSchema()),
      metadata: JsonObjectSchema().optional(),
      ...displayFields()
    })
    .meta({
      id: "StoreWriteRequest",
      description:
        "Objects to add or to replace with, sharing one metadata, and how to display them (payload_type, mapping)."
    })
);
export type StoreWriteRequest = z.infer<
  ReturnType<typeof StoreWriteRequestSchema>
>;

export const StoreRemoveResponseSchema = lazy(() =>
  z.object({ removed: z.number().int().nonnegative() }).meta({
    id: "StoreRemoveResponse",
    description: "How many entries were removed."
  })
);
export type StoreRemoveResponse = z.infer<
  ReturnType<typeof StoreRemoveResponseSchema>
>;
