// Forking: copies identical to the source at one committed step (its
// store, state, transcript, tables, log and order of keys), each
// independent afterwards. The request itself is in fork-requests.test.ts,
// failures mid-fork in fork-failures.test.ts.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forkSession } from "../../src/http/fork-driver";
import type { ForkResponse } from "../../src/protocol";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import { HIDDEN_SENTINEL } from "../fixtures/environments";
import { asSession, fork, midEpisode, rows, view } from "./fork-helpers";
import {
  action,
  authed,
  call,
  createResetSession,
  createSession,
  json,
  send,
  step,
  type TestSession
} from "./helpers";
import { inside, stubOf } from "./session-helpers";
import { openSocket } from "./ws-helpers";

describe("fork: what a copy holds", () => {
  it("copies a session mid-episode 8 ways; each copy then diverges only by its own steps", async () => {
    const source = await midEpisode();
    const res = await fork(source, { count: 8 });
    expect(res.status).toBe(201);
    const forked = await json<ForkResponse>(res);
    expect(forked.source).toBe(source.session_id);
    expect(forked.sessions).toHaveLength(8);
    expect(new Set(forked.sessions.map((c) => c.session_id)).size).toBe(8);
    // The hidden store travels, but never in an answer.
    expect(JSON.stringify(forked)).not.toContain(HIDDEN_SENTINEL);

    const before = await view(source);
    const copies = forked.sessions.map(asSession);
    for (const copy of copies) expect(await view(copy)).toEqual(before);

    // Each copy takes a different step; the source takes one of its own.
    await Promise.all(
      copies.map((copy, i) => step(copy, "note", { text: `copy ${i}` }))
    );
    await step(source, "note", { text: "source" });

    const sourceNotes = await json<{ state: { notes: string[] } }>(
      await source.call("/state")
    );
    expect(sourceNotes.state.notes).toEqual(["shared", "source"]);
    for (const [i, copy] of copies.entries()) {
      const after = await view(copy);
      expect(after.state).toMatchObject({
        state: { count: 1, notes: ["shared", `copy ${i}`] }
      });
      expect(after.status).toMatchObject({ steps: 4, episode: 1 });
      // The store's counters were copied: the copy's next note has the id
      // the source's next note got.
      const notes = await json<{
        entries: { objects: { _REF_ID: string }[] }[];
      }>(await copy.call("/environment?tool=note&name=notes"));
      const sourceIds = await json<{
        entries: { objects: { _REF_ID: string }[] }[];
      }>(await source.call("/environment?tool=note&name=notes"));
      expect(notes.entries.map((e) => e.objects[0]!._REF_ID)).toEqual(
        sourceIds.entries.map((e) => e.objects[0]!._REF_ID)
      );
      expect(JSON.stringify(after)).not.toContain(HIDDEN_SENTINEL);
    }
    // The hidden store itself is in every copy.
    for (const copy of copies) {
      const hidden = await rows(copy.session_id, "SELECT value FROM hidden");
      expect(JSON.stringify(hidden)).toContain(HIDDEN_SENTINEL);
    }
  });

  it("starts each copy's log with forked, naming the source and its seq", async () => {
    const source = await midEpisode();
    const log = await json<{ events: { seq: number }[] }>(
      await source.call("/events?after=0")
    );
    const forked = await json<ForkResponse>(await fork(source, {}));
    expect(forked.sessions).toHaveLength(1);
    expect(forked.seq).toBe(log.events.at(-1)!.seq);
    const copy = asSession(forked.sessions[0]!);
    const events = await json<{ events: Record<string, unknown>[] }>(
      await copy.call("/events?after=0")
    );
    expect(events.events).toEqual([
      expect.objectContaining({
        seq: 1,
        type: "forked",
        episode: 1,
        source: source.session_id,
        source_seq: forked.seq
      })
    ]);
    // A socket sees the copy's own snapshot.
    const sock = await openSocket(copy.session_id, copy.token);
    const frames = await sock.until((f) =>
      f.some((x) => x.type === "session.snapshot")
    );
    expect(frames[0]).toMatchObject({
      type: "session.snapshot",
      last_seq: 1,
      status: { session_id: copy.session_id, steps: 3 }
    });
    sock.ws.close();
  });

  it("gives each copy its own token: neither the source's nor a sibling's admits", async () => {
    const source = await midEpisode();
    const { sessions } = await json<ForkResponse>(
      await fork(source, { count: 2 })
    );
    const [a, b] = sessions;
    for (const token of [source.token, b!.token]) {
      const res = await call(`/v1/sessions/${a!.session_id}`, {
        headers: authed(token)
      });
      expect(res.status).toBe(403);
    }
  });

  it("copies a session never reset, and an ended episode as ended", async () => {
    const fresh = await createSession({ environment: "lab" });
    const [copy] = (await json<ForkResponse>(await fork(fresh, {}))).sessions;
    expect(await json(await asSession(copy!).call(""))).toMatchObject({
      status: "created",
      episode: 0
    });

    const ended = await midEpisode();
    await step(ended, "finish", { reward: 2 });
    const [done] = (await json<ForkResponse>(await fork(ended, {}))).sessions;
    const s = asSession(done!);
    expect(await json(await s.call(""))).toMatchObject({
      status: "done",
      reward: 2,
      return: 2
    });
    const refused = await s.call("/step", send("POST", action("bump")));
    expect(refused.status).toBe(409);
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
  });

  it("copies values as large as a request may write, quotes and all, unchanged", async () => {
    const source = await midEpisode();
    // Stored as JSON text of 600 KB, every character escaped: each further
    // encoding doubles it on the way to SQLite's 2 MB limit on a value.
    const notes = [0, 1, 2].map((i) => `${i}${'"\\'.repeat(50 * 1024)}`);
    const patched = await source.call(
      "/state",
      send("PATCH", { key: "notes", value: notes, handler: "replace" })
    );
    expect(patched.status).toBe(200);
    const forked = await json<ForkResponse>(await fork(source, {}));
    expect(forked.copied.bytes).toBeGreaterThan(600_000);
    const copy = asSession(forked.sessions[0]!);
    const state = await json<{ state: { notes: string[] } }>(
      await copy.call("/state")
    );
    expect(state.state.notes).toEqual(notes);
  });

  it("copies the environment's own tables (ctx.sql) with their indexes, so a catalog copy answers queries", async () => {
    const source = await createResetSession({ environment: "catalog" });
    const tables = (id: string) =>
      rows(
        id,
        "SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'catalog%' ORDER BY name"
      );
    const count = (id: string) =>
      rows(id, "SELECT count(*) AS n FROM catalog_products");
    const forked = await json<ForkResponse>(
      await fork(source, { count: 1 }, {})
    );
    const copy = forked.sessions[0]!;
    expect(await tables(copy.session_id)).toEqual(
      await tables(source.session_id)
    );
    expect(await count(copy.session_id)).toEqual(
      await count(source.session_id)
    );
    // No snapshot table is left behind in the source, and none was copied.
    expect(
      await rows(
        source.session_id,
        "SELECT name FROM sqlite_master WHERE name LIKE '%roost_fork%'"
      )
    ).toEqual([]);
    const query = await asSession(copy).call(
      "/tools/query",
      send("POST", { arguments: { collection: "products", text: "kibble" } })
    );
    const out = await json<{ content: string; is_error: boolean }>(query);
    expect(out.is_error, out.content).toBe(false);
    expect(JSON.parse(out.content).rows.length).toBeGreaterThan(0);
  });

  it("copies how each entry is displayed: its payload type and mapping", async () => {
    const source = await createResetSession({ environment: "catalog" });
    await source.call(
      "/tools/query",
      send("POST", { arguments: { collection: "messages", text: "order" } })
    );
    const read = (s: TestSession) =>
      s.call("/environment?tool=query&name=messages&index=0").then(json);
    const before = await read(source);
    expect(before).toMatchObject({ entry: { payload_type: "document" } });
    const forked = await json<ForkResponse>(
      await fork(source, { count: 1 }, {})
    );
    expect(await read(asSession(forked.sessions[0]!))).toEqual(before);
  });

  it("copies an environment's table in many chunks, its trigger made after the rows", async () => {
    const source = await midEpisode();
    await inside(stubOf(source.session_id), (_, state) => {
      const sql = state.storage.sql;
      sql.exec(
        "CREATE TABLE notes_seen (n INTEGER, body TEXT, twice TEXT GENERATED ALWAYS AS (body || body))"
      );
      sql.exec("CREATE TABLE notes_log (n INTEGER)");
      sql.exec("CREATE INDEX notes_seen_n ON notes_seen (n)");
      sql.exec(
        "CREATE TRIGGER notes_seen_logged AFTER INSERT ON notes_seen BEGIN INSERT INTO notes_log VALUES (new.n); END"
      );
      for (let n = 0; n < 50; n++)
        sql.exec(
          "INSERT INTO notes_seen (n, body) VALUES (?, ?)",
          n,
          "x".repeat(40)
        );
    });
    const stub = stubOf(source.session_id);
    const forked = await forkSession(
      env,
      stub,
      env.SESSIONS.idFromString(source.session_id),
      1,
      "http://127.0.0.1:8787/",
      SERVER_GRANT,
      undefined,
      300
    );
    const id = forked.sessions[0]!.session_id;
    expect(
      await rows(id, "SELECT n, twice FROM notes_seen ORDER BY n")
    ).toEqual(
      Array.from({ length: 50 }, (_, n) => ({ n, twice: "x".repeat(80) }))
    );
    // The log was copied as it was: the trigger did not fire on copied rows.
    expect(await rows(id, "SELECT count(*) AS n FROM notes_log")).toEqual([
      { n: 50 }
    ]);
    expect(
      await rows(
        id,
        "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = 'notes_seen' ORDER BY name"
      )
    ).toEqual([{ name: "notes_seen_logged" }, { name: "notes_seen_n" }]);
    // The source dropped its snapshot, its tables included.
    expect(
      await rows(
        source.session_id,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%fork%' ORDER BY name"
      )
    ).toEqual([{ name: "fork_snapshots" }]);
    expect(
      await rows(source.session_id, "SELECT * FROM fork_snapshots")
    ).toEqual([]);
  });

  it("keeps the order keys were first written in, so keys() reads alike in a copy", async () => {
    const source = await createResetSession({ environment: "lab" });
    // notes before count, and a hidden key: rowid order, not key order.
    await step(source, "note", { text: "n" });
    await step(source, "bump");
    await step(source, "secret");
    const [copy] = (await json<ForkResponse>(await fork(source, {}))).sessions;
    for (const table of [
      "state",
      "hidden",
      "transcript_runs",
      "store_objects"
    ]) {
      const order = `SELECT * FROM ${table} ORDER BY rowid`;
      expect(await rows(copy!.session_id, order), table).toEqual(
        await rows(source.session_id, order)
      );
    }
  });

  it("does not copy a tree run, and the copy can run its own", async () => {
    const source = await midEpisode();
    const run = await source.call("/runs", send("POST", { prompt: "hi" }));
    expect(run.status).toBe(202);
    const [copy] = (await json<ForkResponse>(await fork(source, {}))).sessions;
    expect(await rows(copy!.session_id, "SELECT run_id FROM runs")).toEqual([]);
    const own = await asSession(copy!).call(
      "/runs",
      send("POST", { prompt: "again" })
    );
    expect(own.status).toBe(202);
  });
});
