// A session created by older code wakes up under this code: recover()
// (run when the object is constructed) brings its storage to the current
// schema without losing what it held.

import { describe, expect, it } from "vitest";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import { withGrant } from "../../src/session/grant-header";
import { migrationOf, SCHEMA_VERSION } from "../../src/storage/schema";
import { SqliteStoreBackend } from "../../src/storage/store-backend";
import { createEnvironmentStore } from "../../src/store/environment-store";
import { flags } from "../fixtures/environments";
import {
  abort,
  fresh,
  inside,
  newResetSession,
  ok,
  recordOldVersion,
  toolAction
} from "./session-helpers";

describe("a session of older code", () => {
  it("is migrated when its object wakes, with its episode and store intact", async () => {
    const { id, stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("note", { text: "kept" }) }));
    // Turn it into what version 1 left: no run tables, version 1 recorded.
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      for (const statement of migrationOf(2)) {
        const table = /CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1];
        if (table) sql.exec(`DROP TABLE IF EXISTS ${table}`);
      }
      recordOldVersion(sql, 1);
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

/**
 * The version whose migration contains `fragment`: versions are renumbered
 * when branches that each add one merge, so tests find theirs by content.
 */
const versionOf = (fragment: string): number => {
  for (let v = 1; v <= SCHEMA_VERSION; v++) {
    if (migrationOf(v).some((statement) => statement.includes(fragment)))
      return v;
  }
  throw new Error(`no migration contains ${fragment}`);
};

describe("a session from before payload types", () => {
  it("gains the display columns; its entries read as plain results and new ones keep their type", async () => {
    const { id, stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("note", { text: "old" }) }));
    // What the version before left: store_entries without the two columns.
    const version = versionOf("store_entries ADD COLUMN payload_type");
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      for (const statement of migrationOf(version)) {
        const column = /^ALTER TABLE store_entries ADD COLUMN (\w+)/.exec(
          statement
        )?.[1];
        if (column) sql.exec(`ALTER TABLE store_entries DROP COLUMN ${column}`);
      }
      recordOldVersion(sql, version - 1);
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

describe("a session from before chat runs", () => {
  it("gains the chat columns; its old runs read as before and a chat run keeps its chat", async () => {
    const { id, stub } = await newResetSession("forest");
    const { run_id } = ok(await stub.startRun({ prompt: "multi" }));
    expect(ok(await stub.readRun({ run_id, wait: 20 })).state).toBe(
      "completed"
    );
    // What the version before left: runs without the two columns.
    const version = versionOf("runs ADD COLUMN chat_id");
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      for (const statement of migrationOf(version)) {
        const column = /^ALTER TABLE runs ADD COLUMN (\w+)/.exec(
          statement
        )?.[1];
        if (column) sql.exec(`ALTER TABLE runs DROP COLUMN ${column}`);
      }
      recordOldVersion(sql, version - 1);
    });
    await abort(stub);
    const woken = fresh(id);
    expect(ok(await woken.readRun({ run_id }))).toMatchObject({
      state: "completed",
      prompt: "multi"
    });
    // The old run has no chat: no chat's reconnect finds it.
    const none = await woken.fetch(
      withGrant(
        new Request("https://session/chat/stream?chat=any"),
        SERVER_GRANT
      )
    );
    expect(none.status).toBe(204);
    const gate = `migrated-${crypto.randomUUID()}`;
    const chat = ok(
      await woken.op(
        "startChat",
        { prompt: `gate:${gate}`, chat_id: "c1" },
        SERVER_GRANT
      )
    );
    const going = await woken.fetch(
      withGrant(
        new Request("https://session/chat/stream?chat=c1"),
        SERVER_GRANT
      )
    );
    expect(going.status).toBe(200);
    flags.open.add(gate);
    expect(await going.text()).toContain(`"messageId":"${chat.run_id}"`);
  });
});

describe("a session from before tools per reset", () => {
  it("gains episode_tools and offers every tool", async () => {
    const { id, stub } = await newResetSession("toolbox");
    // What the version before it left: no episode_tools column.
    const version = versionOf("session ADD COLUMN episode_tools") - 1;
    await inside(stub, (_o, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE session DROP COLUMN episode_tools");
      recordOldVersion(sql, version);
    });
    await abort(stub);
    const woken = fresh(id);
    const out = ok(await woken.step({ action: toolAction("drill") }));
    expect(out.observations[0]).toMatchObject({ content: "used the drill" });
    const reset = ok(await woken.reset({ task: { tools: ["saw"] } }));
    expect(reset.tools.map((t) => t.function.name)).toEqual(["saw"]);
    expect(
      ok(await woken.step({ action: toolAction("drill") })).observations[0]
    ).toMatchObject({
      content: "Invalid tool call: drill is not a tool. Tools: saw."
    });
  });
});
