import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  action,
  createResetSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";
import {
  abort,
  fresh,
  inside,
  type SessionApi,
  snapshot,
  stubOf
} from "./session-helpers";

const KIB = 1024;

const bulkSession = async (): Promise<{
  s: TestSession;
  stub: SessionApi;
}> => {
  const s = await createResetSession({ environment: "bulk" });
  const stub = stubOf(s.session_id);
  return { s, stub };
};

const fill = (results: number, kb: number) =>
  send("POST", action("fill", { results, kb }));

describe("staged bytes per step", () => {
  // Nine MiB staged: seconds, when the machine is busy with other files.
  it("refuses a step that stages more than the limit, and keeps nothing of it", async () => {
    const { s, stub } = await bulkSession();
    // 8 MB by default: nine results of 1 MiB cross it.
    expect((await s.call("/step", fill(2, 1024))).status).toBe(200);
    const before = await snapshot(stub);
    const res = await s.call("/step", fill(9, 1024));
    expect(res.status).toBe(413);
    const error = await errorOf(res);
    expect(error.code).toBe("payload_too_large");
    expect(error.details).toMatchObject({ limit: "stagedBytesPerStep" });
    expect(await snapshot(stub)).toEqual(before);
    // The session goes on, and the same amount split over steps is fine.
    for (let i = 0; i < 3; i++) {
      expect((await s.call("/step", fill(3, 1024))).status).toBe(200);
    }
  }, 30_000);

  it("refuses the step even when the tool catches the refusal", async () => {
    const { s, stub } = await bulkSession();
    await inside(stub, (o) =>
      o.runtime.setLimits({ stagedBytesPerStep: 64 * KIB })
    );
    const before = await snapshot(stub);
    const res = await s.call(
      "/step",
      send("POST", action("swallow", { kb: 16, times: 8 }))
    );
    expect(res.status).toBe(413);
    expect(await snapshot(stub)).toEqual(before);
    const hidden = await inside(stub, (_o, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM hidden").one()
    );
    expect(hidden.n).toBe(0);
    // Within the limit the same tool commits.
    const ok = await s.call(
      "/step",
      send("POST", action("swallow", { kb: 16, times: 2 }))
    );
    expect(ok.status).toBe(200);
  });

  it("applies to direct tool calls and store edits too", async () => {
    const { s, stub } = await bulkSession();
    await inside(stub, (o) =>
      o.runtime.setLimits({ stagedBytesPerStep: 32 * KIB })
    );
    const direct = await s.call(
      "/tools/fill",
      send("POST", { arguments: { results: 3, kb: 16 } })
    );
    expect(direct.status).toBe(413);
    const edit = await s.call(
      "/environment/manual/rows",
      send("POST", { objects: [{ pad: "z".repeat(40 * KIB) }] })
    );
    expect(edit.status).toBe(413);
    const store = await json<{ store: Record<string, unknown> }>(
      await s.call("/environment")
    );
    expect(store.store).toEqual({});
  });
});

describe("store entries per session", () => {
  it("refuses the entry past the limit, and counts removals", async () => {
    const { s, stub } = await bulkSession();
    await inside(stub, (o) =>
      o.runtime.setLimits({ storeEntriesPerSession: 5 })
    );
    expect((await s.call("/step", fill(4, 0))).status).toBe(200);
    const before = await snapshot(stub);
    const res = await s.call("/step", fill(2, 0));
    expect(res.status).toBe(413);
    expect((await errorOf(res)).details).toMatchObject({
      limit: "storeEntriesPerSession",
      max: 5
    });
    expect(await snapshot(stub)).toEqual(before);
    expect((await s.call("/step", fill(1, 0))).status).toBe(200);
    // Full: an edit is refused too, until entries are removed.
    const add = () =>
      s.call("/environment/manual/rows", send("POST", { objects: [{ a: 1 }] }));
    expect((await add()).status).toBe(413);
    expect(
      (await s.call("/environment/fill/fill", { method: "DELETE" })).status
    ).toBe(200);
    expect((await add()).status).toBe(201);
  });

  it("starts again from zero in a new episode", async () => {
    const { s, stub } = await bulkSession();
    await inside(stub, (o) =>
      o.runtime.setLimits({ storeEntriesPerSession: 3 })
    );
    expect((await s.call("/step", fill(3, 0))).status).toBe(200);
    expect((await s.call("/step", fill(1, 0))).status).toBe(413);
    await s.call("/reset", send("POST", {}));
    expect((await s.call("/step", fill(3, 0))).status).toBe(200);
  });
});

describe("events retained by bytes", () => {
  it("trims the oldest events past the byte limit, and says so to late readers", async () => {
    const { s, stub } = await bulkSession();
    await inside(stub, (o) =>
      o.runtime.setLimits({ eventsRetainedBytes: 64 * KIB })
    );
    // Each step streams a result event of about 8 KiB.
    for (let i = 0; i < 20; i++) {
      expect((await s.call("/step", fill(1, 8))).status).toBe(200);
    }
    const kept = await inside(stub, (_o, state) =>
      state.storage.sql
        .exec<{ n: number; bytes: number; oldest: number; last: number }>(
          "SELECT count(*) AS n, sum(bytes) AS bytes, min(coalesce(first, seq)) AS oldest, max(seq) AS last FROM events"
        )
        .one()
    );
    expect(kept.bytes).toBeLessThanOrEqual(64 * KIB);
    // Nearly full: at most one step's worth of room is left over.
    expect(kept.bytes).toBeGreaterThan(48 * KIB);
    expect(kept.oldest).toBeGreaterThan(1);
    const late = await s.call("/events?after=0");
    expect(late.status).toBe(410);
    expect((await errorOf(late)).details).toMatchObject({
      oldest_seq: kept.oldest
    });
    const recent = await json<{ events: { seq: number }[] }>(
      await s.call(`/events?after=${kept.oldest - 1}`)
    );
    expect(recent.events.at(-1)?.seq).toBe(kept.last);
  });

  it("keeps its running total equal to the stored bytes, across a restart", async () => {
    const { s, stub } = await bulkSession();
    const limit = 48 * KIB;
    await inside(stub, (o) =>
      o.runtime.setLimits({ eventsRetainedBytes: limit })
    );
    for (let i = 0; i < 8; i++) await s.call("/step", fill(1, 8));
    const compare = (target: SessionApi) =>
      inside(target, (o, state) => ({
        cached: o.runtime.events.totalBytes,
        stored: state.storage.sql
          .exec<{ b: number }>("SELECT sum(bytes) AS b FROM events")
          .one().b
      }));
    const trimmed = await compare(stub);
    expect(trimmed.cached).toBe(trimmed.stored);
    expect(trimmed.stored).toBeLessThanOrEqual(limit);
    await abort(stub);
    const id = env.SESSIONS.idFromString(s.session_id);
    expect((await s.call("/step", fill(1, 8))).status).toBe(200);
    const after = await compare(fresh(id));
    expect(after.cached).toBe(after.stored);
  });
});

describe("hidden data under limits", () => {
  it("is never part of what a refused step reports", async () => {
    const s = await createResetSession({ environment: "lab" });
    await s.call("/step", send("POST", action("secret")));
    const stub = stubOf(s.session_id);
    await inside(stub, (o) => o.runtime.setLimits({ stagedBytesPerStep: 16 }));
    const res = await s.call("/step", send("POST", action("secret")));
    expect(res.status).toBe(413);
    expect(await res.text()).not.toContain(HIDDEN_SENTINEL);
  });
});
