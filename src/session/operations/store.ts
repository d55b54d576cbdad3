/** @module The environment store's operations: paged reads, keys, and add, replace and remove under `[tool][name]`. */

import * as z from "zod";
import { RoostError } from "../../errors";
import { lazy } from "../../lazy";
import {
  CursorSchema,
  displayFields,
  JsonObjectSchema,
  MaxBytesSchema,
  NameSchema,
  READ_BYTES,
  StoreEntryResponseSchema,
  StoreKeysResponseSchema,
  StoreRemoveResponseSchema,
  wireEntry,
  wireStore
} from "../../protocol";
import type { EntryDisplay } from "../../store/display";
import { resultEvent } from "../tool-events";
import { defineOperation } from "./define";
import { entryCursor, entryPositionOf, offsetOf } from "./paging";

const Index = lazy(() => z.number().int());

const KeySchema = lazy(() =>
  z.object({
    tool: NameSchema(),
    name: NameSchema(),
    index: Index().optional()
  })
);
type Key = z.infer<ReturnType<typeof KeySchema>>;

const WriteSchema = lazy(() =>
  KeySchema().extend({
    objects: z.array(JsonObjectSchema()),
    metadata: JsonObjectSchema().optional(),
    ...displayFields()
  })
);
type Write = z.infer<ReturnType<typeof WriteSchema>>;

/** Keys are per operation and entry, so one key cannot answer another edit. */
const scopeOf =
  (op: string) =>
  <K extends Key>(k: K) =>
    `environment/${op}/${k.tool}/${k.name}${k.index === undefined ? "" : `/${k.index}`}`;

/** The request body a key's hash covers, as HTTP sends it. */
const body = <W extends Omit<Write, keyof Key>>({
  objects,
  metadata,
  payload_type,
  mapping
}: W) => ({
  objects,
  ...(metadata === undefined ? {} : { metadata }),
  ...(payload_type === undefined ? {} : { payload_type }),
  ...(mapping === undefined ? {} : { mapping })
});

/** How a written entry is to be displayed, in the store's spelling. */
const displayOf = (w: Write): EntryDisplay => ({
  ...(w.payload_type === undefined ? {} : { payloadType: w.payload_type }),
  ...(w.mapping === undefined ? {} : { mapping: w.mapping })
});

export const readStore = defineOperation({
  input: () =>
    z.object({
      tool: NameSchema().optional(),
      name: NameSchema().optional(),
      index: Index().optional(),
      cursor: CursorSchema().optional(),
      limit: z.number().int().positive().optional(),
      max_bytes: MaxBytesSchema().optional()
    }),
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, q) =>
    rt.read((parts) => {
      const store = parts.environment;
      const maxBytes = q.max_bytes ?? READ_BYTES.default;
      if (q.tool === undefined && q.name === undefined) {
        const page = store.page({
          ...(q.cursor ? { cursor: q.cursor } : {}),
          ...(q.limit ? { limit: q.limit } : {}),
          maxBytes
        });
        return {
          store: wireStore(page.store),
          ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
          ...(page.truncated ? { truncated: page.truncated } : {})
        };
      }
      if (q.tool === undefined || q.name === undefined) {
        throw new RoostError(
          "invalid_request",
          "Give both tool and name to read one key.",
          { field: q.tool === undefined ? "tool" : "name" }
        );
      }
      const { tool, name } = q;
      if (q.index !== undefined) {
        const run = store.read(
          tool,
          name,
          { index: q.index, object: offsetOf(q.cursor) },
          { limit: 1, maxBytes, only: true }
        );
        const [entry] = run.entries;
        if (entry === undefined)
          throw new RoostError("internal", "Lost entry.");
        return {
          entry: wireEntry(entry),
          ...(run.next ? { next_cursor: String(run.next.object) } : {}),
          ...(run.truncated ? { truncated: run.truncated } : {})
        };
      }
      const run = store.read(tool, name, entryPositionOf(q.cursor), {
        limit: q.limit ?? 100,
        maxBytes
      });
      return {
        entries: run.entries.map(wireEntry),
        ...(run.next ? { next_cursor: entryCursor(run.next) } : {}),
        ...(run.truncated ? { truncated: run.truncated } : {})
      };
    })
});

/** The store's keys with counts, never entries: what MCP lists as resources. */
export const storeKeys = defineOperation({
  input: () =>
    z.object({
      cursor: CursorSchema().optional(),
      limit: z.number().int().positive().optional(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: StoreKeysResponseSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, q) =>
    rt.read((parts) => {
      const page = parts.environment.keyPage({
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
        maxBytes: q.max_bytes ?? READ_BYTES.default
      });
      return {
        keys: page.keys,
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
        ...(page.truncated ? { truncated: page.truncated } : {})
      };
    })
});

export const addEntry = defineOperation({
  input: () => WriteSchema().omit({ index: true }),
  output: StoreEntryResponseSchema,
  scope: "control",
  mutates: true,
  idempotency: { scope: scopeOf("add"), hashed: body },
  events: ["result", "store.changed"],
  handle: (rt, w, idem) =>
    rt.commits.mutate("edit", idem, async (m) => {
      const entry = m.parts.environment.addObjects(
        w.tool,
        w.name,
        w.objects,
        w.metadata ?? {},
        displayOf(w)
      );
      // Clients see an added entry like a tool's Result, objects included.
      m.emit("result", resultEvent(entry));
      return { entry: wireEntry(entry) };
    })
});

export const replaceEntry = defineOperation({
  input: WriteSchema,
  output: StoreEntryResponseSchema,
  scope: "control",
  mutates: true,
  idempotency: { scope: scopeOf("replace"), hashed: body },
  events: ["store.changed"],
  handle: (rt, w, idem) =>
    rt.commits.mutate("edit", idem, async (m) => ({
      entry: wireEntry(
        m.parts.environment.replace(
          w.tool,
          w.name,
          w.objects,
          w.metadata ?? {},
          w.index,
          displayOf(w)
        )
      )
    }))
});

export const removeEntry = defineOperation({
  input: KeySchema,
  output: StoreRemoveResponseSchema,
  scope: "control",
  mutates: true,
  idempotency: { scope: scopeOf("remove"), hashed: () => ({}) },
  events: ["store.changed"],
  handle: (rt, k, idem) =>
    rt.commits.mutate("edit", idem, async (m) => {
      const store = m.parts.environment;
      const before = store.slice(k.tool, k.name, 0, 0).total;
      store.remove(k.tool, k.name, k.index);
      return { removed: k.index === undefined ? before : 1 };
    })
});
