// A session created by older code wakes up under this code: recover()
// (run when the object is constructed) brings its storage to the current
// schema without losing what it held.
import { describe, expect, it } from "vitest";
import { migrationOf, SCHEMA_VERSION } from "../../src/storage/schema";
import { SqliteStoreBackend } from "../../src/storage/store-backend";
import { createEnvironmentStore } from "../../src/store/environment-store";
import { abort, call, fresh, inside, newSession, ok } from "./session-helpers";

describe("a session of older code", () => {
  it("is migrated when its object wakes, with its episode and store intact", async () => {
    const { id, stub } = await newSession();
    ok(await stub.reset({}));
    ok(await stub.step(call("note", { text: "kept" })));
    // Turn it into what version 1 left: no run tables, version 1 recorded.
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      for (const statement of migrationOf(2)) {
        const table = /CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1];
        if (table) sql.exec(`DROP TABLE ${table}`);
      }
      sql.exec("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    });
    await abort(stub);
    // The first request wakes a new instance, whose constructor migrates.
    const woken = fresh(id);
    expect(ok(await woken.status())).toMatchObject({ episode: 1, steps: 1 });
    const after = await inside(woken, (_o, state) => ({
      version: state.storage.sql
        .exec<{ value: string }>(
          "SELECT value FROM meta WHERE key = 'schema_version'"
        )
        .one().value,
      runs: state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE name = 'runs'")
        .toArray().length
    }));
    expect(after).toEqual({ version: String(SCHEMA_VERSION), runs: 1 });
    expect(ok(await woken.readState())).toMatchObject({
      state: { notes: ["kept"] }
    });
  });
});

describe("a session from before payload types", () => {
  it("gains the display columns; its entries read as plain results and new ones keep their type", async () => {
    const { id, stub } = await newSession();
    ok(await stub.reset({}));
    ok(await stub.step(call("note", { text: "old" })));
    // What the version before left: store_entries without the two columns.
    const version = Array.from(
      { length: SCHEMA_VERSION },
      (_, i) => i + 1
    ).find((v) =>
      migrationOf(v).some((s) => s.includes("ADD COLUMN payload_type"))
    );
    expect(version).toBeDefined();
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      for (const statement of migrationOf(version!)) {
        const column = /^ALTER TABLE store_entries ADD COLUMN (\w+)/.exec(
          statement
        )?.[1];
        if (column) sql.exec(`ALTER TABLE store_entries DROP COLUMN ${column}`);
      }
      sql.exec(
        "UPDATE meta SET value = ? WHERE key = 'schema_version'",
        String(version! - 1)
      );
    });
    await abort(stub);
    const woken = fresh(id);
    const read = ok(
      await woken.readStore({ tool: "note", name: "notes", index: 0 })
    ) as { entry: Record<string, unknown> };
    expect(read.entry).toMatchObject({ objects: [{ text: "old" }] });
    expect(Object.keys(read.entry).sort()).toEqual([
      "index",
      "metadata",
      "name",
      "objects",
      "tool"
    ]);
    const added = ok(
      await woken.addEntry({
        tool: "shelf",
        name: "rows",
        objects: [{ a: 1 }]
      })
    );
    expect(added.entry).not.toHaveProperty("payload_type");
    await inside(woken, (_o, state) => {
      const sql = state.storage.sql;
      expect(
        sql
          .exec<{ name: string }>(
            "SELECT name FROM pragma_table_info('store_entries') WHERE name IN ('payload_type', 'mapping') ORDER BY name"
          )
          .toArray()
          .map((r) => r.name)
      ).toEqual(["mapping", "payload_type"]);
      const episode = sql
        .exec<{ episode: number }>("SELECT episode FROM session")
        .one().episode;
      createEnvironmentStore(new SqliteStoreBackend(sql, episode)).addObjects(
        "shelf",
        "rows",
        [{ a: 2 }],
        {},
        { payloadType: "table", mapping: { value: "a" } }
      );
    });
    const typed = ok(
      await woken.readStore({ tool: "shelf", name: "rows", index: -1 })
    );
    expect(typed).toMatchObject({
      entry: { payload_type: "table", mapping: { value: "a" } }
    });
  });
});

describe("a session from before tools per reset", () => {
  it("gains episode_tools and offers every tool", async () => {
    const { id, stub } = await newSession("toolbox");
    ok(await stub.reset({}));
    // What the version before it left: no episode_tools column.
    const added = Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1).find(
      (v) =>
        migrationOf(v).includes(
          "ALTER TABLE session ADD COLUMN episode_tools TEXT"
        )
    );
    expect(added).toBeDefined();
    const version = added! - 1;
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE session DROP COLUMN episode_tools");
      sql.exec(
        "UPDATE meta SET value = ? WHERE key = 'schema_version'",
        String(version)
      );
    });
    await abort(stub);
    const woken = fresh(id);
    const out = ok(await woken.step(call("drill")));
    expect(out.observations[0]).toMatchObject({ content: "used the drill" });
    const reset = ok(await woken.reset({ task: { tools: ["saw"] } }));
    expect(reset.tools.map((t) => t.function.name)).toEqual(["saw"]);
    expect(ok(await woken.step(call("drill"))).observations[0]).toMatchObject({
      content: "Invalid tool call: drill"
    });
  });
});
