/** @module The environment store's semantics (Elysia's store of tool results), written once over any StoreBackend. */

import * as z from "zod";
import { RoostError } from "../errors";
import { cloneJson, type JsonObject } from "../json";
import { lazy } from "../lazy";
import { ReadBudget } from "../protocol/read-budget";
import {
  assertName,
  copyJsonObject,
  copyObjects,
  resolveIndex
} from "./checks";
import { checkDisplay, type EntryDisplay } from "./display";
import { renderLlmView } from "./llm-view";
import { readKeyPage, readPage } from "./page";
import { stampAdded, stampReplacement } from "./stamp";
import { putEntries } from "./store-json";
import type {
  AddObjectsOptions,
  AddOptions,
  Entry,
  EntryPosition,
  EntryRun,
  EnvironmentStore,
  KeyInfo,
  KeyPage,
  LocatedEntry,
  ResultLike,
  StoreBackend,
  StoreJson,
  StorePage
} from "./types";
import { readRun } from "./walk";

const OptionsSchema = lazy(() =>
  z.object({
    /** Byte cap of `llmView()` when the call does not give one. */
    llmViewBytes: z.number().int().positive().default(32_768),
    /** More objects than this in one add or replace is `payload_too_large`. */
    maxObjectsPerResult: z.number().int().positive().default(1000)
  })
);

export type EnvironmentStoreOptions = z.input<ReturnType<typeof OptionsSchema>>;

const PageSchema = lazy(() =>
  z.object({
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(1000).default(100),
    maxBytes: z.number().int().positive().optional()
  })
);

const KeyPageSchema = lazy(() =>
  PageSchema().extend({
    limit: z.number().int().min(1).max(10_000).default(1000)
  })
);

const positiveInt = lazy(() => z.number().int().positive());
const countSchema = lazy(() => z.number().int().nonnegative());

const parse = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new RoostError(
      "invalid_request",
      `Invalid ${what}: ${z.prettifyError(result.error)}`
    );
  }
  return result.data;
};

type CheckedOptions = z.output<ReturnType<typeof OptionsSchema>>;

/** The options last checked: a session makes a store per mutation, always with the same two numbers. */
let lastChecked:
  | { llmViewBytes: unknown; maxObjectsPerResult: unknown; out: CheckedOptions }
  | undefined;

const checkOptions = (options: EnvironmentStoreOptions): CheckedOptions => {
  const last = lastChecked;
  if (
    last !== undefined &&
    typeof options === "object" &&
    options !== null &&
    options.llmViewBytes === last.llmViewBytes &&
    options.maxObjectsPerResult === last.maxObjectsPerResult
  ) {
    return last.out;
  }
  const out = parse(OptionsSchema(), options, "store options");
  lastChecked = {
    llmViewBytes: options.llmViewBytes,
    maxObjectsPerResult: options.maxObjectsPerResult,
    out
  };
  return out;
};

class BackedEnvironmentStore implements EnvironmentStore {
  readonly #backend: StoreBackend;
  readonly #options: CheckedOptions;

  constructor(backend: StoreBackend, options: EnvironmentStoreOptions) {
    this.#backend = backend;
    this.#options = checkOptions(options);
  }

  #requireKey(tool: string, name: string): KeyInfo {
    assertName("tool", tool);
    assertName("result", name);
    const info = this.#backend.keyInfo(tool, name);
    if (info === undefined) {
      throw new RoostError(
        "not_found",
        `No results under ${tool}/${name}. keys() lists what the store holds.`,
        { tool, name }
      );
    }
    return info;
  }

  add(tool: string, result: ResultLike, options?: AddOptions): LocatedEntry {
    if (typeof result !== "object" || result === null) {
      throw new RoostError("invalid_request", "add() needs a Result.");
    }
    const { name, objects, metadata, payloadType, mapping } = result;
    return this.addObjects(tool, name, objects, metadata ?? {}, {
      includeDuplicates: options?.includeDuplicates,
      payloadType,
      mapping
    });
  }

  addObjects(
    tool: string,
    name: string,
    objects: JsonObject[],
    metadata: JsonObject = {},
    options: AddObjectsOptions = {}
  ): LocatedEntry {
    assertName("tool", tool);
    assertName("result", name);
    const copies = copyObjects(objects, this.#options.maxObjectsPerResult);
    const meta = copyJsonObject(metadata, "metadata");
    const display = checkDisplay(options);
    const backend = this.#backend;
    // Elysia drops an empty result's entry and with it the metadata; an
    // "impossible query" would then leave the model nothing to read. Here an
    // empty result is an entry like any other, with no objects.
    if (backend.keyInfo(tool, name) === undefined) {
      backend.createKey(tool, name);
    }
    const n = backend.nextEntryNumber(tool, name);
    const stamped = stampAdded(
      backend,
      tool,
      name,
      n,
      copies,
      options.includeDuplicates === true
    );
    const entry: Entry = {
      objects: stamped.objects,
      metadata: meta,
      ...display
    };
    const index = backend.append(tool, name, entry, stamped.fingerprints);
    // A backend may keep what it is given (an overlay does): return a copy.
    return { tool, name, index, ...cloneJson(entry) };
  }

  replace(
    tool: string,
    name: string,
    objects: JsonObject[],
    metadata: JsonObject = {},
    index?: number,
    display: EntryDisplay = {}
  ): LocatedEntry {
    const info = this.#requireKey(tool, name);
    const copies = copyObjects(objects, this.#options.maxObjectsPerResult);
    const meta = copyJsonObject(metadata, "metadata");
    const shown = checkDisplay(display ?? {});
    const where = `${tool}/${name}`;
    const position =
      index == null ? undefined : resolveIndex(index, info.entries, where);
    const backend = this.#backend;
    const n = backend.nextEntryNumber(tool, name);
    const { objects: stored, fingerprints } = stampReplacement(
      tool,
      name,
      n,
      copies
    );
    const entry: Entry = { objects: stored, metadata: meta, ...shown };
    if (position === undefined) {
      backend.clear(tool, name);
      const at = backend.append(tool, name, entry, fingerprints);
      return { tool, name, index: at, ...cloneJson(entry) };
    }
    backend.set(tool, name, position, entry, fingerprints);
    return { tool, name, index: position, ...cloneJson(entry) };
  }

  find(tool: string, name: string): Entry[];
  find(tool: string, name: string, index: number): Entry;
  find(tool: string, name: string, index?: number): Entry[] | Entry {
    const info = this.#requireKey(tool, name);
    if (index == null)
      return this.#backend.entries(tool, name, 0, info.entries);
    const position = resolveIndex(index, info.entries, `${tool}/${name}`);
    return this.#backend.entry(tool, name, position);
  }

  locate(tool: string, name: string, index: number): LocatedEntry {
    const info = this.#requireKey(tool, name);
    const position = resolveIndex(index, info.entries, `${tool}/${name}`);
    const entry = this.#backend.entry(tool, name, position);
    return { tool, name, index: position, ...cloneJson(entry) };
  }

  slice(
    tool: string,
    name: string,
    offset: number,
    limit: number
  ): { entries: LocatedEntry[]; total: number } {
    const info = this.#requireKey(tool, name);
    const start = Math.min(Math.max(0, offset), info.entries);
    const count = Math.max(0, Math.min(limit, info.entries - start));
    const entries = this.#backend
      .entries(tool, name, start, count)
      .map((e, i) => ({ tool, name, index: start + i, ...cloneJson(e) }));
    return { entries, total: info.entries };
  }

  remove(tool: string, name: string, index?: number): void {
    const info = this.#requireKey(tool, name);
    if (index == null) {
      this.#backend.clear(tool, name);
      return;
    }
    const position = resolveIndex(index, info.entries, `${tool}/${name}`);
    this.#backend.removeAt(tool, name, position);
  }

  has(tool: string, name: string): boolean {
    return this.#backend.keyInfo(tool, name) !== undefined;
  }

  /** Like Elysia: keys whose lists were emptied by `remove` count as empty. */
  isEmpty(): boolean {
    return this.#backend.keys().every((k) => k.entries === 0);
  }

  keys(): KeyInfo[] {
    return this.#backend.keys();
  }

  keyPage(
    options: { cursor?: string; limit?: number; maxBytes?: number } = {}
  ): KeyPage {
    const { cursor, limit, maxBytes } = parse(
      KeyPageSchema(),
      options,
      "key page options"
    );
    return readKeyPage(this.#backend, cursor, limit, maxBytes);
  }

  page(
    options: { cursor?: string; limit?: number; maxBytes?: number } = {}
  ): StorePage {
    const { cursor, limit, maxBytes } = parse(
      PageSchema(),
      options,
      "page options"
    );
    return readPage(this.#backend, cursor, limit, maxBytes);
  }

  read(
    tool: string,
    name: string,
    from: EntryPosition,
    options: { limit: number; maxBytes?: number; only?: boolean }
  ): EntryRun {
    const info = this.#requireKey(tool, name);
    const index = options.only
      ? resolveIndex(from.index, info.entries, `${tool}/${name}`)
      : Math.max(0, from.index);
    const budget = new ReadBudget(options.maxBytes);
    const run = readRun(
      this.#backend,
      tool,
      name,
      info.entries,
      { index, object: Math.max(0, from.object) },
      options.only ? 1 : options.limit,
      budget
    );
    const next =
      options.only && run.next?.index !== index ? undefined : run.next;
    return {
      // Backends hand out fresh objects (the memory one copies), so no copy here.
      entries: run.entries,
      total: info.entries,
      ...(next === undefined ? {} : { next }),
      ...(budget.cut ? { truncated: true } : {})
    };
  }

  recent(limit: number): LocatedEntry[] {
    return this.#backend.recent(parse(countSchema(), limit, "recent limit"));
  }

  llmView(options: { maxBytes?: number } = {}): string {
    const maxBytes = options.maxBytes ?? this.#options.llmViewBytes;
    return renderLlmView(
      this.#backend,
      parse(positiveInt(), maxBytes, "llmView maxBytes")
    );
  }

  toJSON(): StoreJson {
    const store: StoreJson = {};
    for (const k of this.#backend.keys()) {
      const entries = this.#backend.entries(k.tool, k.name, 0, k.entries);
      putEntries(store, k.tool, k.name, entries);
    }
    return store;
  }
}

/**
 * The environment store over a backend: memory in the pure core, SQLite in
 * a session. Every rule (names, `_REF_ID`s, `[repeat]`, indexes, copies)
 * lives here, so both backends behave the same.
 *
 * @example
 * const store = createEnvironmentStore(new MemoryStoreBackend());
 * store.add("query", result({ name: "papers", objects: rows }));
 * store.find("query", "papers", -1); // the newest entry
 */
export const createEnvironmentStore = (
  backend: StoreBackend,
  options: EnvironmentStoreOptions = {}
): EnvironmentStore => new BackedEnvironmentStore(backend, options);
