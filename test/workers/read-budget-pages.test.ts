// Every read bounded in bytes as well as in count: pages cut by `max_bytes`
// put back together to exactly what one large read gives, with entries
// split into parts inside a key. Resume points are in
// read-budget-resume.test.ts; the socket, MCP and OpenAPI in
// read-budget-clients.test.ts.
import { describe, expect, it } from "vitest";
import { createResetSession, errorOf, json, send } from "./helpers";
import {
  fill,
  join,
  KIB,
  type Obj,
  pages,
  type WireEntry
} from "./read-budget-helpers";
import { abort, stubOf } from "./session-helpers";

describe("byte-bounded reads", () => {
  it("pages the whole store in parts that join to exactly one large read", async () => {
    const s = await createResetSession();
    await fill(s, ["a", "b", "c"], 3, 5);
    const whole = await json<{
      store: Record<string, Record<string, WireEntry[]>>;
    }>(await s.call("/environment?limit=1000&max_bytes=4194304"));
    const read = await pages<{
      store: Record<string, Record<string, WireEntry[]>>;
      truncated?: true;
    }>(s, "/environment?limit=1000&", 7 * KIB);
    // 45 objects of 2 KiB in 7 KiB pages: cut by bytes, inside entries.
    expect(read.length).toBeGreaterThan(12);
    expect(read.slice(0, -1).every((p) => p.truncated === true)).toBe(true);
    const split = read.flatMap((p) => p.store.t?.a ?? []);
    expect(split.some((e) => (e.objects_from ?? 0) > 0)).toBe(true);
    const joined: Record<string, WireEntry[]> = {};
    for (const page of read) {
      for (const [name, entries] of Object.entries(page.store.t ?? {})) {
        joined[name] = join([...(joined[name] ?? []), ...entries]);
      }
    }
    expect(joined).toEqual(whole.store.t);
  });

  it("reads one key from an entry and an object inside it, and one entry in parts", async () => {
    const s = await createResetSession();
    await fill(s, ["k"], 4, 6);
    const read = await pages<{ entries: WireEntry[] }>(
      s,
      "/environment?tool=t&name=k&",
      5 * KIB
    );
    const entries = join(read.flatMap((p) => p.entries));
    expect(entries.map((e) => e.index)).toEqual([0, 1, 2, 3]);
    for (const [e, entry] of entries.entries()) {
      expect(entry.objects.map((o) => [o.entry, o.i])).toEqual(
        Array.from({ length: 6 }, (_, i) => [e, i])
      );
      expect(entry.metadata).toEqual({ entry: e });
    }
    // Cursors name an entry and the object to go on from.
    const cursors = read.map(
      (p) => (p as { next_cursor?: string }).next_cursor
    );
    expect(cursors.some((c) => c?.includes("."))).toBe(true);

    const parts = await pages<{ entry: WireEntry }>(
      s,
      "/environment?tool=t&name=k&index=-2&",
      5 * KIB
    );
    expect(parts.length).toBe(3);
    expect(parts.map((p) => p.entry.objects_from)).toEqual([0, 2, 4]);
    expect(parts.every((p) => p.entry.object_count === 6)).toBe(true);
    const one = join(parts.map((p) => p.entry));
    expect(one).toHaveLength(1);
    expect(one[0]!.objects.map((o) => [o.entry, o.i])).toEqual(
      Array.from({ length: 6 }, (_, i) => [2, i])
    );
    expect(one[0]!.index).toBe(2);
  });

  it("resumes a read from its cursor after the object was aborted between pages", async () => {
    const s = await createResetSession();
    await fill(s, ["a", "b"], 2, 5);
    const path = "/environment?limit=1000&max_bytes=6000";
    const first = await json<{
      store: Record<string, Record<string, WireEntry[]>>;
      next_cursor: string;
    }>(await s.call(path));
    await abort(stubOf(s.session_id));
    const rest = await pages<{
      store: Record<string, Record<string, WireEntry[]>>;
    }>(s, "/environment?limit=1000&", 6000, first.next_cursor);
    const seen = [first, ...rest].flatMap((p) =>
      Object.values(p.store.t ?? {}).flatMap((entries) =>
        entries.flatMap((e) =>
          e.objects.map((o) => `${o.key}${o.entry}.${o.i}`)
        )
      )
    );
    expect(seen).toEqual(
      ["a", "b"].flatMap((k) =>
        [0, 1].flatMap((e) =>
          Array.from({ length: 5 }, (_, i) => `${k}${e}.${i}`)
        )
      )
    );
  });

  it("always makes progress: an object larger than the budget comes alone", async () => {
    const s = await createResetSession();
    await fill(s, ["big"], 1, 3, 8);
    const pieces: WireEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await json<{ entries: WireEntry[]; next_cursor?: string }>(
        await s.call(
          `/environment?tool=t&name=big&max_bytes=${2 * KIB}${cursor ? `&cursor=${cursor}` : ""}`
        )
      );
      expect(page.entries).toHaveLength(1);
      expect(page.entries[0]!.objects).toHaveLength(1);
      pieces.push(page.entries[0]!);
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    expect(join(pieces)[0]!.objects.map((o) => o.i)).toEqual([0, 1, 2]);
  });

  it("pages the keys in creation order", async () => {
    const s = await createResetSession();
    const names = Array.from(
      { length: 12 },
      (_, i) => `key_${i}_${"k".repeat(50)}`
    );
    await fill(s, names, 1, 1, 1);
    const byCount = await pages<{ keys: { name: string }[] }>(
      s,
      "/environment/keys?limit=5&",
      4096
    );
    expect(byCount.map((p) => p.keys.length)).toEqual([5, 5, 2]);
    const byBytes = await pages<{ keys: { name: string }[]; truncated?: true }>(
      s,
      "/environment/keys?",
      1024
    );
    expect(byBytes.length).toBeGreaterThan(1);
    expect(byBytes[0]!.truncated).toBe(true);
    for (const read of [byCount, byBytes]) {
      expect(read.flatMap((p) => p.keys.map((k) => k.name))).toEqual(names);
    }
  });

  it("pages the transcript and the event log by bytes, every item once and in order", async () => {
    const s = await createResetSession();
    for (let n = 0; n < 6; n++) {
      const res = await s.call(
        "/step",
        send("POST", {
          action: {
            content: `${n} ${"y".repeat(3 * KIB)}`,
            tool_calls: [
              {
                id: `c${n}`,
                type: "function",
                function: { name: "incr", arguments: "{}" }
              }
            ]
          }
        })
      );
      expect(res.status).toBe(200);
    }
    const whole = await json<{ messages: Obj[] }>(
      await s.call("/messages?limit=1000")
    );
    const read = await pages<{
      messages: Obj[];
      total: number;
      truncated?: true;
    }>(s, "/messages?limit=1000&", 5 * KIB);
    expect(read.some((p) => p.truncated)).toBe(true);
    expect(read.flatMap((p) => p.messages)).toEqual(whole.messages);
    // Every page counts the whole transcript, so a viewer can start from its end.
    expect(read.map((p) => p.total)).toEqual(
      read.map(() => whole.messages.length)
    );

    const all = await json<{ events: { seq: number }[] }>(
      await s.call("/events?after=0")
    );
    const seqs: number[] = [];
    let after = 0;
    let cut = 0;
    for (;;) {
      const page = await json<{
        events: { seq: number }[];
        next_after: number;
        truncated?: true;
      }>(await s.call(`/events?after=${after}&max_bytes=${4 * KIB}`));
      if (page.truncated) cut++;
      seqs.push(...page.events.map((e) => e.seq));
      if (page.events.length === 0) break;
      after = page.next_after;
    }
    expect(cut).toBeGreaterThan(0);
    expect(seqs).toEqual(all.events.map((e) => e.seq));
  });

  it("pages the state by whole values, and the default frame says when it was cut", async () => {
    const s = await createResetSession({ environment: "lab" });
    const notes = Array.from({ length: 4 }, (_, i) => `${i}${"n".repeat(KIB)}`);
    const patched = await s.call(
      "/state",
      send("PATCH", { key: "notes", value: notes, handler: "replace" })
    );
    expect(patched.status).toBe(200);
    const whole = await json<{ state: Obj }>(await s.call("/state"));
    expect(whole.state.notes).toEqual(notes);
    const read = await pages<{ state: Obj }>(s, "/state?", 1024);
    expect(read).toHaveLength(2);
    expect(Object.assign({}, ...read.map((p) => p.state))).toEqual(whole.state);

    const frame = await json<{ state: Obj; truncated?: true }>(
      await s.call("/frame?max_bytes=1024")
    );
    expect(frame.truncated).toBe(true);
    expect(frame.state.notes).toBeUndefined();
    const full = await json<{ state: Obj; truncated?: true }>(
      await s.call("/frame")
    );
    expect(full.truncated).toBeUndefined();
    expect(full.state).toEqual(whole.state);
  });

  it("refuses bad cursors and budgets with a 400 and one error shape", async () => {
    const s = await createResetSession();
    await fill(s, ["k"], 2, 2);
    for (const path of [
      "/environment?tool=t&name=k&cursor=1.x",
      "/environment?tool=t&name=k&cursor=.1",
      "/environment?tool=t&name=k&cursor=1.2.3",
      "/environment?tool=t&name=k&index=0&cursor=-1",
      "/environment?max_bytes=10",
      "/environment?max_bytes=99999999",
      "/messages?max_bytes=abc",
      "/environment/keys?cursor=nonsense",
      "/state?cursor=x",
      "/events?after=abc",
      "/events?after=-1"
    ]) {
      const res = await s.call(path);
      expect(res.status, path).toBe(400);
      expect((await errorOf(res)).code).toMatch(/^invalid_/);
    }
  });
});
