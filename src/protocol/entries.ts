/** @module Environment store contents on the wire: entries, located entries, keys with counts. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";
import type { Mapping } from "./map-objects";

/** How a result asks to be displayed; both absent for a plain one. */
export const displayFields = lazy(() => ({
  /** `table`, `document`, or a type of the deployment's own; absent means `default`. */
  payload_type: z.string().optional(),
  /** `{ display_field: data_field }`; `objects` stay whole (see `mapObjects`). */
  mapping: z.record(z.string(), z.string()).optional()
}));

/**
 * Present only on an entry a page holds in part (its byte budget ended
 * inside it): these objects are the entry's from `objects_from` on, of
 * `object_count` in all; the next page goes on with the same entry.
 */
export const partFields = lazy(() => ({
  objects_from: z.number().int().nonnegative().optional(),
  object_count: z.number().int().nonnegative().optional()
}));

export const EntrySchema = lazy(() =>
  z
    .object({
      objects: z.array(JsonObjectSchema()),
      metadata: JsonObjectSchema(),
      ...displayFields(),
      ...partFields()
    })
    .meta({
      id: "Entry",
      description: "Objects stored together under one tool and name."
    })
);
export type Entry = z.infer<ReturnType<typeof EntrySchema>>;

export const LocatedEntrySchema = lazy(() =>
  z
    .object({
      tool: NameSchema(),
      name: NameSchema(),
      /** Position in its key's list, 0-based. */
      index: z.number().int().nonnegative(),
      objects: z.array(JsonObjectSchema()),
      metadata: JsonObjectSchema(),
      ...displayFields(),
      ...partFields()
    })
    .meta({
      id: "LocatedEntry",
      description: "A stored entry with its tool, name and index."
    })
);
export type LocatedEntry = z.infer<ReturnType<typeof LocatedEntrySchema>>;

export const KeyInfoSchema = lazy(() =>
  z
    .object({
      tool: NameSchema(),
      name: NameSchema(),
      entries: z.number().int().nonnegative(),
      objects: z.number().int().nonnegative()
    })
    .meta({ id: "KeyInfo", description: "A store key with its counts." })
);
export type KeyInfo = z.infer<ReturnType<typeof KeyInfoSchema>>;

/** `{ [tool]: { [name]: Entry[] } }`: Elysia's environment store, or a page of it. */
export const StoreJsonSchema = lazy(() =>
  z.record(z.string(), z.record(z.string(), z.array(EntrySchema()))).meta({
    id: "Store",
    description: "The environment store: tool → result name → entries."
  })
);
export type StoreJson = z.infer<ReturnType<typeof StoreJsonSchema>>;

/** An entry of the store's TypeScript API, with display and part fields in camelCase. */
interface ApiEntry {
  payloadType?: string;
  mapping?: Mapping;
  objectsFrom?: number;
  objectCount?: number;
}

type Wire<E extends ApiEntry> = Omit<
  E,
  "payloadType" | "objectsFrom" | "objectCount"
> & {
  payload_type?: string;
  objects_from?: number;
  object_count?: number;
};

/** An entry as the wire carries it: camelCase fields in snake_case, the rest as it is. */
export const wireEntry = <E extends ApiEntry>(entry: E): Wire<E> => {
  const { payloadType, objectsFrom, objectCount, ...rest } = entry;
  return {
    ...rest,
    ...(payloadType === undefined ? {} : { payload_type: payloadType }),
    ...(objectsFrom === undefined
      ? {}
      : { objects_from: objectsFrom, object_count: objectCount })
  };
};

/** A store or a page of it, every entry as the wire carries it. */
export const wireStore = <E extends ApiEntry>(
  store: Record<string, Record<string, E[]>>
): Record<string, Record<string, Wire<E>[]>> => {
  const out: Record<string, Record<string, Wire<E>[]>> = {};
  for (const [tool, names] of Object.entries(store)) {
    const wired: Record<string, Wire<E>[]> = {};
    for (const [name, entries] of Object.entries(names)) {
      own(wired, name, entries.map(wireEntry));
    }
    own(out, tool, wired);
  }
  return out;
};

// A tool or result named `__proto__` is a key like any other.
const own = <T>(target: Record<string, T>, key: string, value: T): void => {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true
  });
};
