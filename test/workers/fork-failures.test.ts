// Forking while things go wrong: a source that keeps stepping, a fork
// interrupted or its source aborted mid-way, a copy the driver abandoned.
// All copies are made or none, and none is ever seen half-made.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forkSession } from "../../src/http/fork-driver";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import {
  asSession,
  hooked,
  midEpisode,
  recording,
  snapshotsLeft,
  view
} from "./fork-helpers";
import { authed, call, step } from "./helpers";
import { abort, api, inside, ok, stubOf } from "./session-helpers";

describe("fork: all made or none", () => {
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
});
