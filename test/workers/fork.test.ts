// Forking: copies identical to the source at one committed step, each
// independent afterwards, all made or none, never seen half-made.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forkSession } from "../../src/http/fork-driver";
import type { ForkResponse } from "../../src/protocol";
import { type Grant, SERVER_GRANT } from "../../src/protocol/scopes";
import { HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  action,
  authed,
  call,
  createResetSession,
  createSession,
  errorOf,
  forkCopy,
  json,
  send,
  step,
  type TestSession,
  withEnv
} from "./helpers";
import { abort, api, inside, ok, stubOf } from "./session-helpers";
import { openSocket } from "./ws-helpers";

/** A caller for one copy, like `createSession`'s. */
const asSession = (copy: ForkResponse["sessions"][number]): TestSession =>
  forkCopy(copy, "lab");

const fork = async (s: TestSession, body: object, headers = {}) =>
  s.call("/fork", send("POST", body, { ...headers }));

/** What a client reads of a session, without what must differ between copies. */
const view = async (s: TestSession) => {
  const read = async (p: string) => json(await s.call(p));
  const {
    session_id: _id,
    created_at: _c,
    last_used_at: _u,
    ...status
  } = await read("");
  return {
    status,
    state: await read("/state"),
    store: await read("/environment?limit=1000"),
    messages: await read("/messages?limit=1000")
  };
};

const rows = (sessionId: string, query: string) =>
  inside(stubOf(sessionId), (_, state) =>
    state.storage.sql.exec(query).toArray()
  );

type Caller = Pick<ReturnType<typeof api>, "op">;

/** `real`, with `hook` run before each of its operations (to step, fail or abort between them). */
const hooked = (
  real: Caller,
  hook: (name: string) => Promise<void> | void
): Caller => ({
  op: (async (name: string, input: unknown, grant: Grant, key?: string) => {
    await hook(name);
    return real.op(name as never, input as never, grant, key);
  }) as Caller["op"]
});

/** Bindings whose namespace records the ids a fork makes, and may wrap their stubs. */
const recording = (
  wrap: (id: string, real: Caller) => Caller = (_, real) => real
) => {
  const made: string[] = [];
  const SESSIONS = {
    newUniqueId: () => {
      const id = env.SESSIONS.newUniqueId();
      made.push(id.toString());
      return id;
    },
    get: (id: DurableObjectId) =>
      wrap(id.toString(), env.SESSIONS.get(id) as unknown as Caller)
  };
  return { made, bindings: { ...env, SESSIONS } as unknown as typeof env };
};

/** What a source still keeps of its forks' snapshots: nothing once they ended. */
const snapshotsLeft = (id: string) =>
  rows(
    id,
    "SELECT name FROM sqlite_master WHERE name LIKE '%roost_fork%' UNION ALL SELECT snap FROM fork_snapshots"
  );

/** A lab session mid-episode: store entries, state, hidden data and a transcript. */
const midEpisode = async (): Promise<TestSession> => {
  const s = await createResetSession({ environment: "lab" });
  await step(s, "bump");
  await step(s, "note", { text: "shared" });
  await step(s, "secret");
  return s;
};

describe("fork", () => {
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

  it("answers a retry that comes while the fork is still being made with 503, then with the same copies", async () => {
    const source = await midEpisode();
    const key = { "Idempotency-Key": `fork-${crypto.randomUUID()}` };
    const stub = stubOf(source.session_id);
    let retried: Response | undefined;
    const slow = hooked(stub, async (name) => {
      if (name === "forkChunk" && retried === undefined)
        retried = await fork(source, { count: 2 }, key);
    });
    const first = await forkSession(
      env,
      slow,
      env.SESSIONS.idFromString(source.session_id),
      2,
      "http://127.0.0.1:8787/",
      SERVER_GRANT,
      key["Idempotency-Key"]
    );
    expect(retried!.status).toBe(503);
    expect((await errorOf(retried!)).code).toBe("unavailable");
    const again = await json<ForkResponse>(
      await fork(source, { count: 2 }, key)
    );
    expect(again.sessions.map((c) => c.session_id)).toEqual(
      first.sessions.map((c) => c.session_id)
    );
  });

  it("needs an API key to fork where making sessions does", async () => {
    const keyed = withEnv({ ROOST_API_KEYS: "key-a" });
    const source = await createSession({ environment: "lab" }, keyed, {
      Authorization: "Bearer key-a"
    });
    const path = `/v1/sessions/${source.session_id}/fork`;
    const withToken = await keyed(path, send("POST", {}, authed(source.token)));
    expect(withToken.status).toBe(403);
    const withKey = await keyed(
      path,
      send("POST", {}, authed(source.token, { "X-API-Key": "key-a" }))
    );
    expect(withKey.status).toBe(201);
    const asBearer = await keyed(path, send("POST", {}, authed("key-a")));
    expect(asBearer.status).toBe(201);
  });

  it("puts a copy on probation until its first use, like a session nobody asked for", async () => {
    const source = await midEpisode();
    const [copy] = (await json<ForkResponse>(await fork(source, {}))).sessions;
    const probation = () =>
      rows(copy!.session_id, "SELECT key FROM meta WHERE key = 'awaiting_use'");
    expect(await probation()).toEqual([{ key: "awaiting_use" }]);
    expect((await asSession(copy!).call("")).status).toBe(200);
    expect(await probation()).toEqual([]);
  });

  it("answers a retry with the same Idempotency-Key with the same copies", async () => {
    const source = await midEpisode();
    const key = { "Idempotency-Key": `fork-${crypto.randomUUID()}` };
    const first = await json<ForkResponse>(
      await fork(source, { count: 2 }, key)
    );
    const again = await json<ForkResponse>(
      await fork(source, { count: 2 }, key)
    );
    expect(again).toEqual(first);
    const other = await fork(source, { count: 3 }, key);
    expect(other.status).toBe(422);
    expect((await errorOf(other)).code).toBe("idempotency_mismatch");
  });

  it("refuses a bad count and changes nothing", async () => {
    const source = await midEpisode();
    const before = await view(source);
    for (const body of [
      { count: 0 },
      { count: 65 },
      { count: 1.5 },
      { n: 1 }
    ]) {
      const res = await fork(source, body);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_request");
    }
    expect(await view(source)).toEqual(before);
    expect(await snapshotsLeft(source.session_id)).toEqual([]);
  });

  it("copies one committed step while the source keeps stepping, in many chunks", async () => {
    const source = await midEpisode();
    for (let i = 0; i < 20; i++) await step(source, "note", { text: `n${i}` });
    const expected = await view(source);
    const stub = stubOf(source.session_id);
    // Every chunk read lets the source take a step in between.
    let chunks = 0;
    const stepping = hooked(stub, async (name) => {
      if (name !== "forkChunk") return;
      chunks++;
      await step(source, "bump");
    });
    const forked = await forkSession(
      env,
      stepping,
      env.SESSIONS.idFromString(source.session_id),
      2,
      "http://127.0.0.1:8787/",
      SERVER_GRANT,
      undefined,
      500
    );
    expect(chunks).toBeGreaterThan(5);
    for (const copy of forked.sessions)
      expect(await view(asSession(copy))).toEqual(expected);
    expect((await view(source)).status).toMatchObject({ steps: 23 + chunks });
    expect(await snapshotsLeft(source.session_id)).toEqual([]);
  });

  it("an interrupted fork leaves no copy, made or half-made, and the source serving", async () => {
    const source = await midEpisode();
    const stub = stubOf(source.session_id);
    let calls = 0;
    // The third copy's object dies at its second chunk.
    const { made, bindings } = recording((id, real) =>
      id !== made[2]
        ? real
        : hooked(real, (name) => {
            if (name === "importChunk" && ++calls === 2)
              throw new Error(
                "Durable Object reset because its code was updated."
              );
          })
    );
    await expect(
      forkSession(
        bindings,
        stub,
        env.SESSIONS.idFromString(source.session_id),
        4,
        "http://127.0.0.1:8787/",
        SERVER_GRANT,
        undefined,
        300
      )
    ).rejects.toMatchObject({ code: "unavailable" });
    expect(made).toHaveLength(4);
    for (const id of made) {
      const res = await call(`/v1/sessions/${id}`, {
        headers: authed(source.token)
      });
      // The source's token is no copy's; what matters is the object is empty.
      expect([403, 404]).toContain(res.status);
    }
    for (const id of made) {
      const copy = stubOf(id);
      const status = await copy.op("status", {}, SERVER_GRANT);
      expect(status.ok).toBe(false);
      const tables = await inside(copy, (_, state) =>
        state.storage.sql
          .exec("SELECT name FROM sqlite_master WHERE type = 'table'")
          .toArray()
      );
      expect(tables).toEqual([]);
    }
    expect(await snapshotsLeft(source.session_id)).toEqual([]);
    await step(source, "bump");
  });

  it("a source aborted mid-fork leaves no copy, and reloads to serve on", async () => {
    const source = await midEpisode();
    for (let i = 0; i < 5; i++) await step(source, "note", { text: `n${i}` });
    const expected = await view(source);
    const id = env.SESSIONS.idFromString(source.session_id);
    const stub = api(env.SESSIONS.get(id));
    const { made, bindings } = recording();
    let chunks = 0;
    const dying = hooked(stub, async (name) => {
      if (name === "forkChunk" && ++chunks === 2) await abort(stub);
    });
    await expect(
      forkSession(
        bindings,
        dying,
        env.SESSIONS.idFromString(source.session_id),
        2,
        "http://127.0.0.1:8787/",
        SERVER_GRANT,
        undefined,
        300
      )
    ).rejects.toMatchObject({ code: "unavailable" });
    expect(made).toHaveLength(2);
    for (const copy of made) {
      const status = await stubOf(copy).op("status", {}, SERVER_GRANT);
      expect(status.ok).toBe(false);
    }
    expect(await view(source)).toEqual(expected);
    await step(source, "bump");
  });

  it("never serves a copy the driver abandoned, and deletes it when its time is up", async () => {
    const source = await midEpisode();
    const stub = stubOf(source.session_id);
    // A driver that dies after the first chunk: begin, one chunk, nothing more.
    const begun = ok(await stub.op("forkBegin", { count: 1 }, SERVER_GRANT));
    if (begun.replay) throw new Error("not a replay");
    const id = env.SESSIONS.newUniqueId();
    const copy = api(env.SESSIONS.get(id));
    ok(
      await copy.op(
        "importBegin",
        {
          sessionId: id.toString(),
          origin: begun.begun.origin
        },
        SERVER_GRANT
      )
    );
    const chunk = ok(
      await stub.op(
        "forkChunk",
        {
          snap: begun.begun.snap,
          cursor: { table: 0, after: 0 },
          maxBytes: 200
        },
        SERVER_GRANT
      )
    );
    ok(await copy.op("importChunk", { parts: chunk.parts }, SERVER_GRANT));
    expect(chunk.done).toBe(false);

    // Half-made: no route, no socket, no RPC sees a session.
    expect((await copy.op("status", {}, SERVER_GRANT)).ok).toBe(false);
    const forged = await call(`/v1/sessions/${id}/state`);
    expect([401, 404]).toContain(forged.status);

    // Its alarm deletes it once the import went idle; the source's drops the snapshot.
    await inside(copy, (instance) => {
      instance.runtime.now = () => Date.now() + 6 * 60 * 1000;
    });
    await runDurableObjectAlarm(copy.raw);
    const tables = await inside(copy, (_, state) =>
      state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
    );
    expect(tables).toEqual([]);
    await inside(stub, (instance) => {
      instance.runtime.now = () => Date.now() + 11 * 60 * 1000;
    });
    await runDurableObjectAlarm(stub.raw);
    expect(await snapshotsLeft(source.session_id)).toEqual([]);
    await step(source, "bump");
  });

  it("forks over the session socket, like the route", async () => {
    const source = await midEpisode();
    const sock = await openSocket(source.session_id, source.token);
    await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
    sock.send({ type: "fork", id: "f1", count: 2 });
    const frames = await sock.until((f) => f.some((x) => x.id === "f1"));
    const reply = frames.find((x) => x.id === "f1") as unknown as {
      ok: boolean;
      value: ForkResponse;
    };
    expect(reply.ok).toBe(true);
    expect(reply.value.sessions).toHaveLength(2);
    expect(reply.value.sessions[0]!.ws_url).toBe(
      `ws://127.0.0.1:8787/v1/sessions/${reply.value.sessions[0]!.session_id}/ws`
    );
    const copy = asSession(reply.value.sessions[1]!);
    expect(await view(copy)).toEqual(await view(source));
    sock.send({ type: "fork", id: "f2", count: 99 });
    const bad = await sock.until((f) => f.some((x) => x.id === "f2"));
    expect(bad.find((x) => x.id === "f2")).toMatchObject({
      type: "protocol.error"
    });
    sock.ws.close();
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
