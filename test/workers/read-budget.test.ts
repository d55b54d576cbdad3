// Every read bounded in bytes as well as in count: pages cut by `max_bytes`
// put back together to exactly what one large read gives, with entries
// split into parts inside a key, and resume points checked alike over HTTP
// and on the socket.
import { describe, expect, it } from "vitest";
import {
  call,
  createResetSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";
import { abort, inside, stubOf } from "./session-helpers";
import { openSocket } from "./ws-helpers";

type Obj = Record<string, unknown>;
type WireEntry = Obj & {
  objects: Obj[];
  objects_from?: number;
  object_count?: number;
  index?: number;
};

const KIB = 1024;

/** An object of about `kb` KiB that says where it belongs. */
const object = (key: string, entry: number, i: number, kb = 2): Obj => ({
  key,
  entry,
  i,
  pad: "x".repeat(kb * KIB - 64)
});

/** Adds `entries` entries of `objects` objects of `kb` KiB under each key. */
const fill = async (
  s: TestSession,
  keys: string[],
  entries: number,
  objects: number,
  kb = 2
) => {
  for (const key of keys) {
    for (let e = 0; e < entries; e++) {
      const res = await s.call(
        `/environment/t/${key}`,
        send("POST", {
          objects: Array.from({ length: objects }, (_, i) =>
            object(key, e, i, kb)
          ),
          metadata: { entry: e }
        })
      );
      expect(res.status).toBe(201);
    }
  }
};

/** Reads every page of `path` (which ends in `?…` or `&…`), checking each one's size and progress. */
const pages = async <T extends Obj>(
  s: TestSession,
  path: string,
  maxBytes: number,
  from?: string
): Promise<T[]> => {
  const out: T[] = [];
  let cursor = from;
  do {
    const res = await s.call(
      `${path}max_bytes=${maxBytes}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const page = JSON.parse(text) as T & {
      next_cursor?: string;
      truncated?: true;
    };
    // A unit is a few KiB here, so a page may pass its budget by one unit at most.
    expect(new TextEncoder().encode(text).byteLength).toBeLessThan(
      maxBytes + 4 * KIB
    );
    if (cursor !== undefined) expect(page.next_cursor).not.toBe(cursor);
    out.push(page);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return out;
};

/** Joins entry parts: a part with `objects_from > 0` continues the entry before it. */
const join = (parts: WireEntry[]): WireEntry[] => {
  const whole: WireEntry[] = [];
  for (const { objects_from, object_count, ...part } of parts) {
    const last = whole.at(-1);
    if (objects_from !== undefined && objects_from > 0) {
      expect(last?.objects.length).toBe(objects_from);
      last!.objects.push(...part.objects);
    } else {
      whole.push(part);
    }
    if (object_count !== undefined)
      expect(whole.at(-1)!.objects.length).toBeLessThanOrEqual(object_count);
  }
  return whole;
};

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

describe("resume points, checked alike everywhere", () => {
  it("answers an `after` past the last seq with a 400 over HTTP", async () => {
    const s = await createResetSession();
    const last = (
      await json<{ events: { seq: number }[] }>(await s.call("/events?after=0"))
    ).events.at(-1)!.seq;
    expect((await s.call(`/events?after=${last}`)).status).toBe(200);
    const past = await s.call(`/events?after=${last + 1}`);
    expect(past.status).toBe(400);
    expect(await errorOf(past)).toMatchObject({
      code: "invalid_request",
      details: { field: "after", last_seq: last }
    });
  });

  it("reads every retained event without `after`, and a 410 with an `after` before them", async () => {
    const s = await createResetSession();
    const stub = stubOf(s.session_id);
    await inside(stub, (instance) => {
      instance.runtime.setLimits({ eventsRetained: 5 });
    });
    for (let n = 0; n < 4; n++) {
      const res = await s.call(
        "/step",
        send("POST", {
          action: {
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
    const retained = await json<{ events: { seq: number }[] }>(
      await s.call("/events")
    );
    const seqs = retained.events.map((e) => e.seq);
    expect(seqs[0]).toBeGreaterThan(1);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    const trimmed = await s.call("/events?after=0");
    expect(trimmed.status).toBe(410);
    expect(await errorOf(trimmed)).toMatchObject({
      code: "gone",
      details: { oldest_seq: seqs[0] }
    });
  });

  it.each(["abc", "-1", "1e3", "99999"])(
    "closes a socket opened with ?after=%s with a protocol.error and 4400",
    async (after) => {
      const s = await createResetSession();
      const socket = await openSocket(s.session_id, s.token, `?after=${after}`);
      const closed = await socket.closed;
      expect(closed.code).toBe(4400);
      expect(socket.frames.map((f) => f.type)).toEqual(["protocol.error"]);
      expect(socket.frames[0]).toMatchObject({
        error: { code: "invalid_request" }
      });
    }
  );

  it("answers a resume frame past the last seq in band and stays open", async () => {
    const s = await createResetSession();
    const socket = await openSocket(s.session_id, s.token);
    await socket.until((f) => f.some((x) => x.type === "session.snapshot"));
    socket.send({ type: "resume", after: 10_000 });
    await socket.until((f) => f.some((x) => x.type === "protocol.error"));
    socket.send({ type: "ping" });
    await socket.until((f) => f.some((x) => x.type === "pong"));
    socket.send({ type: "resume", after: 0 });
    await socket.until((f) => f.some((x) => x.type === "reset"));
  });
});

describe("the socket's snapshot", () => {
  it("holds what fits of a large state and names where the rest is read", async () => {
    const s = await createResetSession({ environment: "wide" });
    const value = "w".repeat(250 * KIB);
    for (const key of ["a", "b", "c", "d", "e", "f"]) {
      const res = await s.call("/state", send("PATCH", { key, value }));
      expect(res.status).toBe(200);
    }
    const socket = await openSocket(s.session_id, s.token);
    const [snapshot] = await socket.until((f) =>
      f.some((x) => x.type === "session.snapshot")
    );
    expect(snapshot).toMatchObject({ truncated: true });
    const held = Object.keys(snapshot!.state as Obj);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThan(6);
    const rest = await json<{ state: Obj; next_cursor?: string }>(
      await s.call(`/state?cursor=${snapshot!.state_next_cursor as string}`)
    );
    expect([...held, ...Object.keys(rest.state)]).toEqual(
      expect.arrayContaining(["a", "b", "c", "d", "e", "f"])
    );
    expect(
      new TextEncoder().encode(JSON.stringify(snapshot)).byteLength
    ).toBeLessThan(1024 * KIB + 4 * KIB);
    socket.ws.close();
  });
});

describe("MCP resources", () => {
  it("reads a key larger than one page by following next_uri", async () => {
    const s = await createResetSession();
    // Three entries of 1000 objects of 1 KiB: past the 1 MiB of one read.
    await fill(s, ["many"], 3, 900, 1);
    const seen: [number, number][] = [];
    let uri: string | undefined = "roost://environment/t/many";
    let reads = 0;
    while (uri !== undefined) {
      const res = await s.call(
        "/mcp",
        send("POST", {
          jsonrpc: "2.0",
          id: reads,
          method: "resources/read",
          params: { uri }
        })
      );
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text.length).toBeLessThan(4 * 1024 * KIB);
      const answer = JSON.parse(text) as {
        result: { contents: { text: string }[] };
      };
      const page = JSON.parse(answer.result.contents[0]!.text) as {
        entries: WireEntry[];
        next_uri?: string;
      };
      for (const e of page.entries)
        for (const o of e.objects)
          seen.push([o.entry as number, o.i as number]);
      uri = page.next_uri;
      reads++;
    }
    expect(reads).toBeGreaterThan(2);
    expect(seen).toEqual(
      [0, 1, 2].flatMap((e) =>
        Array.from({ length: 900 }, (_, i) => [e, i] as [number, number])
      )
    );
  });
});

describe("the budget in OpenAPI", () => {
  it("documents max_bytes on every paged read and truncated on its answer", async () => {
    const doc = await json<{
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; description?: string }[];
            responses: Record<string, { content?: unknown }>;
          }
        >
      >;
      components: { schemas: Record<string, unknown> };
    }>(await call("/openapi.json"));
    for (const path of [
      "/v1/sessions/{id}/environment",
      "/v1/sessions/{id}/environment/keys",
      "/v1/sessions/{id}/messages",
      "/v1/sessions/{id}/events",
      "/v1/sessions/{id}/state",
      "/v1/sessions/{id}/frame"
    ]) {
      const get = doc.paths[path]?.get;
      const param = get?.parameters?.find((p) => p.name === "max_bytes");
      expect(param?.description, path).toMatch(/1 MiB when absent/);
      // Answers are components; every one a read may give says it may be cut.
      const refs = [
        ...JSON.stringify(get?.responses["200"]).matchAll(
          /#\/components\/schemas\/(\w+)/g
        )
      ].map((m) => m[1]!);
      expect(refs.length, path).toBeGreaterThan(0);
      for (const ref of refs) {
        expect(JSON.stringify(doc.components.schemas[ref]), ref).toContain(
          '"truncated"'
        );
      }
    }
  });
});
