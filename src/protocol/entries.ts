/** @module Environment store contents on the wire: entries, located entries, keys with counts. */

import * as z from "zod";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";

export const EntrySchema = z
  .object({
    objects: z.array(JsonObjectSchema),
    metadata: JsonObjectSchema
  })
  .meta({
    id: "Entry",
    description: "Objects stored together under one tool and name."
  });
export type Entry = z.infer<typeof EntrySchema>;

export const LocatedEntrySchema = z
  .object({
    tool: NameSchema,
    name: NameSchema,
    /** Position in its key's list, 0-based. */
    index: z.number().int().nonnegative(),
    objects: z.array(JsonObjectSchema),
    metadata: JsonObjectSchema
  })
  .meta({
    id: "LocatedEntry",
    description: "A stored entry with its tool, name and index."
  });
export type LocatedEntry = z.infer<typeof LocatedEntrySchema>;

export const KeyInfoSchema = z
  .object({
    tool: NameSchema,
    name: NameSchema,
    entries: z.number().int().nonnegative(),
    objects: z.number().int().nonnegative()
  })
  .meta({ id: "KeyInfo", description: "A store key with its counts." });
export type KeyInfo = z.infer<typeof KeyInfoSchema>;

/** `{ [tool]: { [name]: Entry[] } }`: Elysia's environment store, or a page of it. */
export const StoreJsonSchema = z
  .record(z.string(), z.record(z.string(), z.array(EntrySchema)))
  .meta({
    id: "Store",
    description: "The environment store: tool → result name → entries."
  });
export type StoreJson = z.infer<typeof StoreJsonSchema>;
