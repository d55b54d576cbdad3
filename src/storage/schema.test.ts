/** @module The schema in a real Durable Object: creation, probing, migration from every older version, and refusing a newer one. */

import { env, runInDurableObject } from "cloudflare:test";
import { aroundEach, describe, expect, it } from "vitest";
import { createEnvironmentStore } from "../store/environment-store";
import { codeOf } from "../store/helpers.case";
import { COPIED_TABLES } from "./fork-copy";
import { BATCHED } from "./purge";
import {
  MIGRATED_TABLE_NAMES,
  migrate,
  migrationOf,
  SCHEMA_VERSION,
  schemaVersion
} from "./schema";
import { SqliteTranscriptBackend } from "./state-backend";
import { SqliteStoreBackend } from "./store-backend";
import { EPISODE_TABLES, makeAllTables, ROOST_TABLE_NAMES } from "./tables";

let sql: SqlStorage;

aroundEach(async (runTest) => {
  const stub = env.SESSIONS.get(env.SESSIONS.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    sql = state.storage.sql;
    await runTest();
  });
});

const tables = (): string[] =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name"
    )
    .toArray()
    .map((r) => r.name);

const indexes = (): string[] =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name"
    )
    .toArray()
    .map((r) => r.name);

/** A database as version `v` of the code left it. */
const atVersion = (v: number) => {
  for (let i = 1; i <= v; i++)
    for (const statement of migrationOf(i)) sql.exec(statement);
  sql.exec(
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
    String(v)
  );
};

describe("schema", () => {
  it("reports no version on a fresh object and creates nothing by asking", () => {
    expect(schemaVersion(sql)).toBeUndefined();
    expect(tables()).toEqual([]);
  });

  it("makes a table on first use, in the layout the migrations give, and leaves a new session at its row's table", () => {
    // A new session's first statement makes only the table it needs.
    sql.exec(
      "INSERT INTO session (id, session_id, environment, created_at, last_used_at, schema_version) VALUES (1, 's', 'e', 0, 0, ?)",
      SCHEMA_VERSION
    );
    expect(tables()).toEqual(["session"]);
    expect(schemaVersion(sql)).toBe(SCHEMA_VERSION);
    migrate(sql);
    expect(tables()).toEqual(["session"]);
    // Reading a table makes it too (empty), and a group comes whole.
    expect(sql.exec("SELECT count(*) AS n FROM store_entries").one()).toEqual({
      n: 0
    });
    expect(tables()).toEqual([
      "session",
      "store_counters",
      "store_entries",
      "store_keys",
      "store_objects"
    ]);
    // A name that is not Roost's still fails as SQLite says.
    expect(() => sql.exec("SELECT * FROM not_ours")).toThrow(/no such table/);
  });

  it("gives every table the same columns and indexes whether made now or by every migration", async () => {
    const layout = () => ({
      columns: sql
        .exec(
          "SELECT m.name AS t, p.name, p.type, p.\"notnull\" AS nn, p.dflt_value AS d, p.pk FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY m.name, p.cid"
        )
        .toArray(),
      indexes: sql
        .exec(
          "SELECT m.name AS i, m.tbl_name AS t, p.name FROM sqlite_schema m JOIN pragma_index_info(m.name) p WHERE m.type = 'index' ORDER BY m.name, p.seqno"
        )
        .toArray()
    });
    atVersion(SCHEMA_VERSION);
    const migrated = layout();
    for (const name of tables()) sql.exec(`DROP TABLE ${name}`);
    makeAllTables(sql);
    expect(layout()).toEqual(migrated);
    expect([...ROOST_TABLE_NAMES].sort()).toEqual(
      [...MIGRATED_TABLE_NAMES].sort()
    );
  });

  it("migrates each older version to the current one and keeps its rows", () => {
    for (let v = 1; v < SCHEMA_VERSION; v++) {
      for (const name of tables()) sql.exec(`DROP TABLE ${name}`);
      atVersion(v);
      createEnvironmentStore(new SqliteStoreBackend(sql, 1)).addObjects(
        "tool",
        "key",
        [{ kept: v }],
        {}
      );
      // Before runs of messages, the transcript kept one row per message.
      const oldTranscript = tables().includes("transcript");
      if (oldTranscript)
        for (const idx of [0, 1])
          sql.exec(
            "INSERT INTO transcript (episode, idx, message) VALUES (1, ?, ?)",
            idx,
            JSON.stringify({ role: "user", content: `m${idx}` })
          );
      migrate(sql);
      expect(schemaVersion(sql)).toBe(SCHEMA_VERSION);
      expect(tables()).toContain("runs");
      expect(tables()).not.toContain("transcript");
      if (oldTranscript) {
        const transcript = new SqliteTranscriptBackend(sql, 1);
        expect(transcript.count()).toBe(2);
        expect(transcript.list(1, 5)).toEqual([
          { role: "user", content: "m1" }
        ]);
        transcript.append([{ role: "assistant", content: "m2" }]);
        expect(transcript.list(0, 5).map((m) => m.content)).toEqual([
          "m0",
          "m1",
          "m2"
        ]);
      }
      expect(new SqliteStoreBackend(sql, 1).keys()).toMatchObject([
        { tool: "tool", name: "key", entries: 1 }
      ]);
      // Every version ends with the same indexes as a new session: the
      // event log's old index on bytes (a second row per event) is gone.
      expect(indexes()).not.toContain("events_bytes");
    }
  });

  it("migrates a version 1 session whose run tables were already made lazily", () => {
    atVersion(1);
    for (const statement of migrationOf(2)) sql.exec(statement);
    sql.exec(
      "INSERT INTO runs (run_id, episode, prompt, model, state, created_at, updated_at) VALUES ('r', 1, 'p', 'm', 'completed', 0, 0)"
    );
    migrate(sql);
    expect(schemaVersion(sql)).toBe(SCHEMA_VERSION);
    expect(sql.exec("SELECT run_id FROM runs").toArray()).toEqual([
      { run_id: "r" }
    ]);
  });

  it("refuses a database written by a newer schema and changes nothing", () => {
    atVersion(SCHEMA_VERSION);
    sql.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    const before = tables();
    expect(codeOf(() => migrate(sql))).toBe("internal");
    expect(tables()).toEqual(before);
    expect(schemaVersion(sql)).toBe(99);
  });

  it("lists every column of each table a fork copies, and every table Roost creates", () => {
    makeAllTables(sql);
    for (const [table, columns] of Object.entries(COPIED_TABLES)) {
      const actual = sql
        .exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table)
        .toArray()
        .map((c) => c.name);
      // A column added to the schema but not here would not be copied.
      expect([...columns], table).toEqual(actual);
    }
    expect([...ROOST_TABLE_NAMES].sort()).toEqual(tables());
  });

  it("knows what becomes of every per-episode table, and purge and fork agree", () => {
    makeAllTables(sql);
    // The session's own row names the current episode; it is not one's row.
    const withEpisode = [...ROOST_TABLE_NAMES].filter(
      (table) =>
        table !== "session" &&
        sql
          .exec(
            "SELECT 1 FROM pragma_table_info(?) WHERE name = 'episode'",
            table
          )
          .toArray()
          .some(() => true)
    );
    // A new table with an `episode` column must say how it is purged and forked.
    expect(withEpisode.sort()).toEqual(Object.keys(EPISODE_TABLES).sort());
    const where = (test: (how: (typeof EPISODE_TABLES)[string]) => boolean) =>
      Object.entries(EPISODE_TABLES)
        .filter(([, how]) => test(how))
        .map(([table]) => table)
        .sort();
    expect(Object.keys(COPIED_TABLES).sort()).toEqual(where((h) => h.fork));
    expect([...BATCHED].sort()).toEqual(where((h) => h.purge === "batch"));
    // The store's three tables are purged by key (purge.ts's purgeKey).
    expect(where((h) => h.purge === "by key")).toEqual([
      "store_entries",
      "store_keys",
      "store_objects"
    ]);
  });
});
