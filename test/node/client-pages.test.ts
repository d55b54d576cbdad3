import { afterAll, describe, expect, inject, it } from "vitest";
import { WebSocket } from "ws";
import {
  connectSession,
  createClient,
  type FetchLike,
  RoostClientError,
  type RoostSession,
  type SocketStatus,
  type StatusDetail,
  type WholeEntry
} from "../../src/client/index";
import type { StoreJson } from "../../src/protocol/index";
import { createSignal } from "../shared/signal";

// The client's page and item iterators against wrangler dev, with budgets
// far below what the session holds, so every read takes many pages.
const baseUrl = inject("baseUrl");
const client = createClient({ baseUrl });
const created: RoostSession[] = [];
const MAX = 4 * 1024 * 1024;

const session = async (environment: string, task?: { target: number }) => {
  const s = await client.createSession({
    environment,
    ...(task ? { task } : {})
  });
  created.push(s);
  await s.reset();
  return s;
};

afterAll(async () => {
  for (const s of created) await s.delete().catch(() => undefined);
});

const calls = (name: string, args: object[]) => ({
  tool_calls: args.map((a, i) => ({
    id: `c${i}`,
    type: "function" as const,
    function: { name, arguments: JSON.stringify(a) }
  }))
});

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

const pad = (i: number) => ({ i, pad: `${i}`.repeat(1500) });

describe("session.pages and session.items against wrangler dev", () => {
  it("reads a transcript and an event log past the budget: each message and event once, in order", async () => {
    const s = await session("counter", { target: 1000 });
    for (let step = 0; step < 15; step++)
      await s.step(calls("incr", [{}, {}, {}]));
    const whole = await s.messages({ limit: 1000, max_bytes: MAX });
    expect(whole.next_cursor).toBeUndefined();
    expect(whole.messages.length).toBeGreaterThan(40);

    const pages = await collect(s.pages.messages({ max_bytes: 1024 }));
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.some((p) => p.truncated)).toBe(true);
    expect(pages.flatMap((p) => p.messages)).toEqual(whole.messages);
    expect(await collect(s.items.messages({ max_bytes: 1024 }))).toEqual(
      whole.messages
    );

    const log = (await s.events(0, { limit: 10_000, max_bytes: MAX })).events;
    const eventPages = await collect(s.pages.events(0, { max_bytes: 1024 }));
    // Pages shorter than their limit that were not the end: the byte budget cut them.
    const cut = eventPages.slice(0, -1).filter((p) => p.events.length < 1000);
    expect(cut.length).toBeGreaterThan(3);
    expect(cut.every((p) => p.truncated)).toBe(true);
    expect(eventPages.flatMap((p) => p.events)).toEqual(log);
    const middle = log[Math.floor(log.length / 2)]!.seq;
    expect(
      await collect(s.items.events(middle, { max_bytes: 1024, limit: 7 }))
    ).toEqual(log.filter((e) => e.seq > middle));
  });

  it("joins entries cut into parts: every entry whole, every object once, in order", async () => {
    const s = await session("counter");
    await s.add("docs", "big", {
      objects: [0, 1, 2, 3, 4, 5].map(pad),
      metadata: { n: 0 }
    });
    await s.add("docs", "big", { objects: [{ i: 6 }], metadata: { n: 1 } });
    await s.add("docs", "big", {
      objects: [7, 8, 9, 10, 11].map(pad),
      metadata: { n: 2 },
      payloadType: "table"
    });
    for (const n of [0, 1, 2])
      await s.add("docs", "small", { objects: [{ n }] });
    await s.add("notes", "long", { objects: [20, 21, 22].map(pad) });

    const whole = await s.environment({ limit: 1000, max_bytes: MAX });
    expect(whole.next_cursor).toBeUndefined();

    const parts = await collect(s.pages.store({ max_bytes: 4096 }));
    expect(
      parts.some((p) =>
        Object.values(p.store).some((names) =>
          Object.values(names).some((entries) =>
            entries.some((e) => (e.objects_from ?? 0) > 0)
          )
        )
      )
    ).toBe(true);
    const entries = await collect(s.items.store({ max_bytes: 4096 }));
    expect(asStore(entries)).toEqual(whole.store);
    expect(entries.map((e) => `${e.tool}/${e.name}/${e.index}`)).toEqual([
      "docs/big/0",
      "docs/big/1",
      "docs/big/2",
      "docs/small/0",
      "docs/small/1",
      "docs/small/2",
      "notes/long/0"
    ]);

    const key = await s.environment({
      tool: "docs",
      name: "big",
      max_bytes: MAX
    });
    // One object per part at this budget: each big entry comes in many.
    const keyPages = await collect(
      s.pages.entries("docs", "big", { max_bytes: 1024 })
    );
    expect(keyPages.length).toBeGreaterThanOrEqual(11);
    expect(
      await collect(s.items.entries("docs", "big", { max_bytes: 1024 }))
    ).toEqual(key.entries);
    expect(
      await collect(
        s.items.entries("docs", "big", { max_bytes: 1024, limit: 1 })
      )
    ).toEqual(key.entries);

    const last = await collect(
      s.pages.entry("docs", "big", -1, { max_bytes: 1024 })
    );
    expect(last.map((p) => p.entry.objects_from)).toEqual([0, 1, 2, 3, 4]);
    expect(await s.entry("docs", "big", -1, { max_bytes: 1024 })).toEqual(
      key.entries[2]
    );
  });

  it("reads a state and store keys larger than a page whole", async () => {
    const s = await session("ledger");
    await s.patchState({ key: "a", value: ["a".repeat(1500)] });
    await s.patchState({ key: "b", value: ["b".repeat(1500), "c"] });
    const statePages = await collect(s.pages.state({ max_bytes: 1024 }));
    expect(statePages.map((p) => Object.keys(p.state))).toEqual([["a"], ["b"]]);
    expect(await s.state({ max_bytes: 1024 })).toEqual({
      a: ["a".repeat(1500)],
      b: ["b".repeat(1500), "c"]
    });
    expect(await s.state()).toEqual(await s.state({ max_bytes: 1024 }));

    await s.step(calls("spread", [{ keys: 30 }]));
    const keyPages = await collect(s.pages.keys({ max_bytes: 1024 }));
    expect(keyPages.length).toBeGreaterThan(3);
    const names = Array.from(
      { length: 30 },
      (_, i) => `k${String(i).padStart(3, "0")}_${"n".repeat(56)}`
    );
    const { keys, ...rest } = await s.keys({ max_bytes: 1024 });
    expect(rest).toEqual({});
    expect(keys.map((k) => k.name)).toEqual(names);
    expect(keys.every((k) => k.tool === "spread" && k.entries === 1)).toBe(
      true
    );
    expect(await collect(s.items.keys({ max_bytes: 1024, limit: 4 }))).toEqual(
      keys
    );
  });

  it("closes for good on a 4400 (an after past the last seq) with the server's protocol.error", async () => {
    const s = await session("counter");
    const statuses: [SocketStatus, StatusDetail][] = [];
    const errors: Error[] = [];
    const signal = createSignal();
    let sockets = 0;
    class CountingWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols);
        sockets++;
      }
    }
    const socket = connectSession({
      baseUrl,
      sessionId: s.id,
      token: s.token,
      WebSocket: CountingWebSocket,
      after: 999,
      heartbeatMs: 0,
      backoff: { baseMs: 10, maxMs: 10 },
      onEvent: () => undefined,
      onStatus: (status, detail) => {
        statuses.push([status, detail]);
        signal.notify();
      },
      onError: (error) => {
        errors.push(error);
        signal.notify();
      }
    });
    // Queued while connecting: it fails with the reason, not a bare close.
    const reply = socket.call("incr");
    await expect(reply).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("past this session's last seq")
    });
    await signal.until(() => socket.status === "closed", { what: "closed" });
    const [status, detail] = statuses.at(-1)!;
    expect(status).toBe("closed");
    expect(detail).toMatchObject({ code: 4400 });
    expect(detail.error).toBeInstanceOf(RoostClientError);
    expect(detail.error).toMatchObject({
      code: "invalid_request",
      details: { field: "after" }
    });
    expect(errors).toEqual([detail.error]);
    expect(statuses.some(([s]) => s === "reconnecting")).toBe(false);
    expect(sockets).toBe(1);
  });
});

describe("session.items on pages that do not join", () => {
  /** A server of scripted `/environment` pages, one per request, in turn. */
  const scripted = (pages: object[]): FetchLike => {
    let next = 0;
    return async () => Response.json(pages[next++]);
  };
  const part = (index: number, from: number, objects: object[]) => ({
    tool: "t",
    name: "n",
    index,
    objects,
    metadata: {},
    objects_from: from,
    object_count: 3
  });
  const at = (pages: object[]) =>
    createClient({
      baseUrl: "http://roost.invalid",
      fetch: scripted(pages),
      retries: 0
    }).session("s", "token");

  it("throws inconsistent_pages on a gap between an entry's parts", async () => {
    const s = at([
      { entries: [part(0, 0, [{ o: 0 }])], next_cursor: "0.1" },
      { entries: [part(0, 2, [{ o: 2 }])] }
    ]);
    await expect(collect(s.items.entries("t", "n"))).rejects.toMatchObject({
      code: "inconsistent_pages",
      message: expect.stringContaining("t/n entry 0 from object 2")
    });
  });

  it("throws inconsistent_pages when the pages end inside an entry", async () => {
    const s = at([{ entries: [part(0, 0, [{ o: 0 }, { o: 1 }])] }]);
    await expect(collect(s.items.entries("t", "n"))).rejects.toMatchObject({
      code: "inconsistent_pages"
    });
  });

  it("joins parts that go on where the last ended", async () => {
    const s = at([
      { entries: [part(0, 0, [{ o: 0 }])], next_cursor: "0.1" },
      { entries: [part(0, 1, [{ o: 1 }, { o: 2 }])] }
    ]);
    expect(await collect(s.items.entries("t", "n"))).toEqual([
      {
        tool: "t",
        name: "n",
        index: 0,
        metadata: {},
        objects: [{ o: 0 }, { o: 1 }, { o: 2 }]
      }
    ]);
  });

  it("refuses a cursor that does not move on", async () => {
    const s = at([
      { keys: [], next_cursor: "x" },
      { keys: [], next_cursor: "x" }
    ]);
    await expect(collect(s.pages.keys({ cursor: "x" }))).rejects.toMatchObject({
      code: "inconsistent_pages"
    });
  });
});

/** Whole entries put back into the store's JSON shape. */
const asStore = (entries: WholeEntry[]): StoreJson => {
  const store: StoreJson = {};
  for (const { tool, name, index: _index, ...entry } of entries) {
    const names = store[tool] ?? {};
    store[tool] = names;
    names[name] = [...(names[name] ?? []), entry];
  }
  return store;
};
