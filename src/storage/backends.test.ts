/** @module The SQLite backends in a real Durable Object: the shared contracts, plus episodes, purging, row limits and lazy reads. */

import { env, runInDurableObject } from "cloudflare:test";
import { aroundEach, describe, expect, it } from "vitest";
import { RoostError } from "../errors";
import type { JsonObject } from "../json";
import { runStateContract } from "../state/state.case";
import { createEnvironmentStore } from "../store/environment-store";
import { codeOf } from "../store/helpers.case";
import { runHiddenStoreContract } from "../store/hidden-store.case";
import { MemoryStoreBackend } from "../store/memory-backend";
import { runStoreContract } from "../store/store.case";
import type { EnvironmentStore } from "../store/types";
import { SqliteHiddenStore } from "./hidden-store";
import { purgeEpisodesBefore } from "./purge";
import { migrate } from "./schema";
import { SqliteStateBackend, SqliteTranscriptBackend } from "./state-backend";
import { SqliteStoreBackend } from "./store-backend";
import { makeAllTables } from "./tables";

/**
 * A Durable Object's storage may only be touched from inside that object's
 * I/O context, so a handle cannot leave `runInDurableObject`. Each test
 * therefore runs inside the callback of a fresh object, with its handle here.
 */
let sql: SqlStorage;

const inFreshObject = (schema: boolean) =>
  aroundEach(async (runTest) => {
    const stub = env.SESSIONS.get(env.SESSIONS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      sql = state.storage.sql;
      if (schema) migrate(sql);
      await runTest();
    });
  });

/** A handle that counts statements and the rows SQLite read for them. */
const counting = () => {
  type Cursor = SqlStorageCursor<Record<string, SqlStorageValue>>;
  const seen = { statements: 0, cursors: [] as Cursor[] };
  const handle = {
    exec: (query: string, ...params: unknown[]) => {
      seen.statements++;
      const cursor = sql.exec(query, ...params);
      seen.cursors.push(cursor);
      return cursor;
    }
  } as SqlStorage;
  const rowsRead = (fn: () => unknown): number => {
    seen.cursors = [];
    fn();
    return seen.cursors.reduce((n, c) => n + c.rowsRead, 0);
  };
  return { handle, seen, rowsRead };
};

const count = (table: string): number =>
  sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n;

const DATA_TABLES = [
  "store_keys",
  "store_counters",
  "store_entries",
  "store_objects",
  "hidden",
  "state",
  "transcript_runs"
];

const rowsIn = (): Record<string, number> =>
  Object.fromEntries(DATA_TABLES.map((t) => [t, count(t)]));

const total = (rows: Record<string, number>): number =>
  Object.values(rows).reduce((n, c) => n + c, 0);

/** Every kind of row, in one episode. */
const fill = (episode: number, n: number) => {
  const store = createEnvironmentStore(new SqliteStoreBackend(sql, episode));
  for (let i = 0; i < n; i++) {
    store.addObjects("tool", `key${i % 3}`, [{ i, e: episode }, { j: i }], {
      i
    });
  }
  const hidden = new SqliteHiddenStore(sql, episode);
  const state = new SqliteStateBackend(sql, episode);
  const transcript = new SqliteTranscriptBackend(sql, episode);
  for (let i = 0; i < n; i++) {
    hidden.set(`h${i}`, i);
    state.set(`s${i}`, [i]);
    transcript.append([{ role: "user", content: `m${i}` }]);
  }
  return store;
};

describe("SQLite backends", () => {
  inFreshObject(true);

  it("keeps episodes apart", () => {
    fill(1, 3);
    const store = createEnvironmentStore(new SqliteStoreBackend(sql, 2));
    expect(store.isEmpty()).toBe(true);
    expect(store.keys()).toEqual([]);
    expect(store.recent(10)).toEqual([]);
    expect(new SqliteHiddenStore(sql, 2).keys()).toEqual([]);
    expect(new SqliteStateBackend(sql, 2).has("s0")).toBe(false);
    expect(new SqliteTranscriptBackend(sql, 2).count()).toBe(0);
    // Same key names in a new episode start from scratch: counter, ids, repeats.
    const added = store.addObjects("tool", "key0", [{ i: 0, e: 1 }]);
    expect(added.objects[0]?._REF_ID).toBe("tool_key0_1_0");
    expect(
      createEnvironmentStore(new SqliteStoreBackend(sql, 1)).keys()
    ).toEqual([
      { tool: "tool", name: "key0", entries: 1, objects: 2 },
      { tool: "tool", name: "key1", entries: 1, objects: 2 },
      { tool: "tool", name: "key2", entries: 1, objects: 2 }
    ]);
  });

  it("purges old episodes in bounded batches and leaves the current one alone", () => {
    fill(1, 10);
    fill(2, 4);
    const old = total(rowsIn());
    fill(3, 3);
    const before = rowsIn();
    const batches: number[] = [];
    let n = purgeEpisodesBefore(sql, 3, 7);
    while (n > 0) {
      batches.push(n);
      n = purgeEpisodesBefore(sql, 3, 7);
    }
    // Full batches of 7 until the last: the budget is spent across tables.
    expect(batches.slice(0, -1).every((b) => b === 7)).toBe(true);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(old);
    expect(total(rowsIn())).toBe(total(before) - old);
    const store = createEnvironmentStore(new SqliteStoreBackend(sql, 3));
    expect(store.keys().map((k) => k.entries)).toEqual([1, 1, 1]);
    expect(store.find("tool", "key0")).toHaveLength(1);
    expect(new SqliteHiddenStore(sql, 3).keys()).toEqual(["h0", "h1", "h2"]);
    expect(new SqliteTranscriptBackend(sql, 3).count()).toBe(3);
    expect(new SqliteStateBackend(sql, 3).get("s2")).toEqual([2]);
    expect(purgeEpisodesBefore(sql, 3, 7)).toBe(0);
  });

  it("stores and reads back a Result of 5 000 objects of about 1 KB", () => {
    const objects: JsonObject[] = Array.from({ length: 5000 }, (_, i) => ({
      i,
      text: `${i}`.padEnd(1000, "x")
    }));
    const store = createEnvironmentStore(new SqliteStoreBackend(sql, 1), {
      maxObjectsPerResult: 5000
    });
    store.addObjects("bulk", "rows", objects, { n: 5000 });
    expect(count("store_objects")).toBe(5000);
    const [entry] = store.find("bulk", "rows");
    expect(entry?.objects).toHaveLength(5000);
    expect(entry?.objects.map(({ _REF_ID, ...rest }) => rest)).toEqual(objects);
    expect(store.keys()).toEqual([
      { tool: "bulk", name: "rows", entries: 1, objects: 5000 }
    ]);
  });

  it("refuses a value over the row limit and writes nothing", () => {
    const store = createEnvironmentStore(new SqliteStoreBackend(sql, 1));
    store.addObjects("big", "rows", [{ a: 1 }]);
    const before = rowsIn();
    // 2.2 MB as UTF-8, though only 1.1 million UTF-16 units.
    const huge = { text: "é".repeat(1_100_000) };
    const refused = [
      () => store.addObjects("big", "rows", [{ b: 2 }, huge]),
      () => store.addObjects("big", "rows", [{ b: 2 }], huge),
      () => store.replace("big", "rows", [huge], {}, 0),
      () => new SqliteHiddenStore(sql, 1).set("k", huge),
      () => new SqliteStateBackend(sql, 1).set("k", huge),
      () =>
        new SqliteTranscriptBackend(sql, 1).append([
          { role: "user", content: "fits" },
          { role: "user", content: huge.text }
        ])
    ];
    for (const write of refused) {
      expect(codeOf(write)).toBe("payload_too_large");
    }
    expect(rowsIn()).toEqual(before);
    expect(store.find("big", "rows")).toHaveLength(1);
  });

  it("stores an object just under the limit", () => {
    const store = createEnvironmentStore(new SqliteStoreBackend(sql, 1));
    const large = { text: "x".repeat(1_899_000) };
    store.addObjects("big", "rows", [large]);
    expect(store.find("big", "rows", 0).objects[0]?.text).toBe(large.text);
  });

  it("treats __proto__ and constructor as ordinary keys", () => {
    const store = createEnvironmentStore(new SqliteStoreBackend(sql, 1));
    const object = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}');
    store.addObjects("__proto__", "constructor", [object]);
    expect(store.keys()).toEqual([
      { tool: "__proto__", name: "constructor", entries: 1, objects: 1 }
    ]);
    const [read] = store.find("__proto__", "constructor", 0).objects;
    expect(Object.keys(read ?? {})).toEqual([
      "_REF_ID",
      "__proto__",
      "constructor"
    ]);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    const hidden = new SqliteHiddenStore(sql, 1);
    hidden.set("__proto__", { constructor: 1 });
    expect(hidden.get("__proto__")).toEqual({ constructor: 1 });
    expect(hidden.has("constructor")).toBe(false);
    const state = new SqliteStateBackend(sql, 1);
    state.set("constructor", "c");
    expect(state.keys()).toEqual(["constructor"]);
    expect(state.get("__proto__")).toBeUndefined();
    expect(state.has("toString")).toBe(false);
  });

  it("reads everything back through fresh instances, which read nothing on construction", () => {
    const store = fill(1, 5);
    store.remove("tool", "key1", 0);
    store.replace("tool", "key2", [{ r: 1 }], { m: 1 }, -1);
    const json = store.toJSON();
    const recent = store.recent(3);
    const { handle, seen } = counting();
    const backend = new SqliteStoreBackend(handle, 1);
    const hidden = new SqliteHiddenStore(handle, 1);
    const state = new SqliteStateBackend(handle, 1);
    const transcript = new SqliteTranscriptBackend(handle, 1);
    expect(seen.statements).toBe(0);
    const again = createEnvironmentStore(backend);
    expect(again.toJSON()).toEqual(json);
    expect(again.recent(3)).toEqual(recent);
    expect(again.addObjects("tool", "key0", [{ i: 0, e: 1 }]).objects).toEqual([
      { object_info: "[repeat]", _REF_ID: "tool_key0_1_0" }
    ]);
    expect(hidden.get("h4")).toBe(4);
    expect(state.keys()).toEqual(["s0", "s1", "s2", "s3", "s4"]);
    expect(transcript.list(3, 10).map((m) => m.content)).toEqual(["m3", "m4"]);
  });

  it("reads as many rows per call from 2 000 entries as from 40", () => {
    // Every table there from the start: a read first looks a table up
    // (tables.ts rowsIfPresent), which reads as many rows either way then.
    makeAllTables(sql);
    /** Rows SQLite reads for each call, on a key of `n` entries in its own episode. */
    const readsAt = (episode: number, n: number) => {
      const fillStore = createEnvironmentStore(
        new SqliteStoreBackend(sql, episode)
      );
      const fillTranscript = new SqliteTranscriptBackend(sql, episode);
      for (let i = 0; i < n; i++) {
        fillStore.addObjects("t", "n", [{ i }, { i, twin: true }], { i });
        fillTranscript.append([{ role: "user", content: `m${i}` }]);
      }
      fillStore.addObjects("t", "other", [{ i: 0 }]);
      const { handle, rowsRead } = counting();
      const store = createEnvironmentStore(
        new SqliteStoreBackend(handle, episode)
      );
      const transcript = new SqliteTranscriptBackend(handle, episode);
      const hidden = new SqliteHiddenStore(handle, episode);
      return {
        keys: rowsRead(() => store.keys()),
        newest: rowsRead(() => store.find("t", "n", -1)),
        oldest: rowsRead(() => store.find("t", "n", 0)),
        add: rowsRead(() => store.addObjects("t", "n", [{ i: 5 }, { i: -1 }])),
        replace: rowsRead(() => store.replace("t", "n", [{ r: 1 }], {}, -2)),
        remove: rowsRead(() => store.remove("t", "n", -1)),
        recent: rowsRead(() => store.recent(3)),
        view: rowsRead(() => store.llmView({ maxBytes: 300 })),
        count: rowsRead(() => transcript.count()),
        tail: rowsRead(() => transcript.list(n - 2, 10)),
        append: rowsRead(() =>
          transcript.append([{ role: "user", content: "x" }])
        ),
        hidden: rowsRead(() => hidden.set("k", 1))
      };
    };
    const small = readsAt(1, 40);
    expect(readsAt(2, 2000)).toEqual(small);
    expect(small.newest).toBeLessThan(10);
  });
});

describe("SQLite store backend against the memory one", () => {
  inFreshObject(true);

  it("answers a random run of edits exactly like the memory backend", () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    type Edit = (store: EnvironmentStore) => unknown;
    /** One random call; small values, so repeats and bad indexes are common. */
    const nextEdit = (step: number): Edit => {
      const name = ["a", "b", "c"][random(3)] ?? "a";
      const objects = Array.from({ length: random(4) }, () => ({
        v: random(6)
      }));
      const index = random(9) - 4;
      const meta = { step };
      // Entries with and without a display, so a position changes between them.
      const shown = [
        {},
        { payloadType: "table" },
        { payloadType: "document", mapping: { title: "v" } }
      ][random(3)];
      switch (random(7)) {
        case 0:
        case 1:
          return (s) => s.addObjects("t", name, objects, meta, shown);
        case 2:
          return (s) =>
            s.addObjects("t", name, objects, meta, { includeDuplicates: true });
        case 3:
          return (s) => s.replace("t", name, objects, meta, index, shown);
        case 4:
          return (s) => s.replace("t", name, objects, meta);
        case 5:
          return (s) => s.remove("t", name, index === 0 ? undefined : index);
        default:
          return (s) => s.find("t", name, index);
      }
    };
    const outcome = (edit: Edit, store: EnvironmentStore) => {
      try {
        return { value: edit(store) ?? null };
      } catch (error) {
        return { error: error instanceof RoostError ? error.code : error };
      }
    };
    const memory = createEnvironmentStore(new MemoryStoreBackend());
    const sqlite = createEnvironmentStore(new SqliteStoreBackend(sql, 1));
    const tally = { value: 0, error: 0 };
    for (let step = 0; step < 400; step++) {
      const edit = nextEdit(step);
      const expected = outcome(edit, memory);
      expect({ step, ...outcome(edit, sqlite) }).toEqual({ step, ...expected });
      tally["value" in expected ? "value" : "error"]++;
      if (step % 10 === 0) {
        expect(sqlite.toJSON()).toEqual(memory.toJSON());
        expect(sqlite.keys()).toEqual(memory.keys());
        expect(sqlite.recent(6)).toEqual(memory.recent(6));
        expect(sqlite.llmView({ maxBytes: 400 })).toBe(
          memory.llmView({ maxBytes: 400 })
        );
      }
    }
    expect(tally.value).toBeGreaterThan(100);
    expect(tally.error).toBeGreaterThan(20);
  });
});

describe("contracts", () => {
  inFreshObject(true);
  // The suites expect every create() to be empty; a new episode is exactly that.
  let episode = 0;
  runStoreContract("SQLite", () =>
    createEnvironmentStore(new SqliteStoreBackend(sql, ++episode))
  );
  runHiddenStoreContract("SQLite", () => new SqliteHiddenStore(sql, ++episode));
  runStateContract("SQLite", () => ({
    backend: new SqliteStateBackend(sql, ++episode),
    transcript: new SqliteTranscriptBackend(sql, episode)
  }));
});
