// A session created by older code wakes up under this code: recover()
// (run when the object is constructed) brings its storage to the current
// schema without losing what it held.
import { describe, expect, it } from "vitest";
import { migrationOf, SCHEMA_VERSION } from "../../src/storage/schema";
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
