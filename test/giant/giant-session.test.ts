// Issue 31's giant sessions: built through the public API at the sizes the
// write limits allow, then read back through every read route, MCP, OpenEnv
// and the socket's resume. Every answer goes through Wire, which fails the
// test on a 5xx or on a body over 4 MiB; every read checks that each object,
// message and event comes exactly once and in order.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launch } from "../browser/browser";
import {
  type Built,
  buildGiant,
  buildLongLog,
  LONG_STEP_EVENTS_BOUND
} from "./build";
import { readWithClientIterators } from "./client-reads";
import { checkContiguous, oldestRetained, readEvents } from "./log-reads";
import { McpReader } from "./mcp-reads";
import { openEnvState } from "./openenv-reads";
import { plannedObjects, STEPS, STORE_PLAN } from "./plan";
import { Report } from "./report";
import { sameReads, sumBytes } from "./same-reads";
import { socketSnapshot } from "./socket-snapshot";
import {
  readEntry,
  readKey,
  readKeys,
  readMessages,
  readState,
  readStore
} from "./store-reads";
import { StoreSequence } from "./store-sequence";
import { TranscriptSequence } from "./transcript-sequence";
import { openChatApp, openInspector } from "./ui-reads";
import { type SessionRef, Wire } from "./wire";

const baseUrl = inject("baseUrl");
const wire = new Wire(baseUrl);
const report = new Report();
const expectSameReads = sameReads(wire, report);

const KIB = 1024;
const MIB = 1024 * KIB;
const EVENTS_RETAINED = 10_000;
const EVENTS_RETAINED_BYTES = 16 * MIB;

let giant: Built;
let session: SessionRef;
let longLog: SessionRef;

/** Kills the session's object (the e2e worker's route); the next request reloads it. */
const abort = async (s: SessionRef) => {
  const answer = await wire.send("POST", `/__e2e/sessions/${s.id}/abort`);
  expect(answer.status).toBe(204);
};

const keyOf = (tool: string, name: string) => {
  const key = STORE_PLAN.find((k) => k.tool === tool && k.name === name);
  if (!key) throw new Error(`${tool}/${name} is not planned.`);
  return key;
};

/** A read of one entry, checked against the plan's key up to that entry. */
const entrySequence = (tool: string, name: string, index: number) => {
  const key = keyOf(tool, name);
  return new StoreSequence(
    [{ ...key, entries: key.entries.slice(0, index + 1) }],
    index
  );
};

beforeAll(async () => {
  giant = await buildGiant(wire, (line) => console.log(`giant build: ${line}`));
  session = giant.session;
  report.note(
    `built: ${(giant.storeBytes / 1e6).toFixed(1)} MB of store requests (${plannedObjects()} objects), ${(giant.transcriptBytes / 1e6).toFixed(1)} MB of step requests, in ${(giant.ms / 1000).toFixed(0)} s`
  );
  const started = performance.now();
  longLog = await buildLongLog(wire, EVENTS_RETAINED + 500);
  report.note(
    `built the count-limit log in ${((performance.now() - started) / 1000).toFixed(0)} s`
  );
});

afterAll(() => {
  console.log(report.render(wire.stats()));
});

describe("a giant session read back through every route", () => {
  it("lists its keys with their counts in creation order, paged by count and by bytes", async () => {
    const want = STORE_PLAN.map((k) => ({
      tool: k.tool,
      name: k.name,
      entries: k.entries.length,
      objects: k.entries.reduce((n, e) => n + e.objects, 0)
    }));
    const all = await report.time("keys", () => readKeys(wire, session));
    expect(all.keys).toEqual(want);
    expect(all.tally.pages).toBe(1);
    const paged = await report.time("keys, limit 3", () =>
      readKeys(wire, session, { limit: 3, maxBytes: KIB })
    );
    expect(paged.keys).toEqual(want);
    expect(paged.tally.pages).toBe(4);
  });

  it("gives every object once, in order, a 1 MiB page at a time, across an abort between two pages", async () => {
    const sequence = new StoreSequence();
    let aborted = 0;
    const tally = await report.time("store, 1 MiB pages, aborted once", () =>
      readStore(wire, session, sequence, {
        between: async (page) => {
          if (page === 100) {
            await abort(session);
            aborted++;
          }
        }
      })
    );
    const summary = sequence.finish();
    expect(aborted).toBe(1);
    expect(summary.objects).toBe(plannedObjects());
    expect(summary.parts).toBeGreaterThan(0);
    expect(tally.pages).toBeGreaterThan(200);
    expect(tally.largest).toBeLessThanOrEqual(MIB + 4 * KIB);
  });

  it("gives every object once, in order, at the 4 MiB maximum", async () => {
    const sequence = new StoreSequence();
    const tally = await report.time("store, 4 MiB pages", () =>
      readStore(wire, session, sequence, { maxBytes: 4 * MIB, limit: 1000 })
    );
    expect(sequence.finish().objects).toBe(plannedObjects());
    expect(tally.pages).toBeGreaterThan(50);
  });

  it("gives each key's entries once, in order, and a key in small pages", async () => {
    const sequence = new StoreSequence();
    for (const key of STORE_PLAN) {
      await report.time(`key ${key.tool}/${key.name}`, () =>
        readKey(wire, session, key, sequence)
      );
    }
    expect(sequence.finish().objects).toBe(plannedObjects());
    const wide = keyOf("wide", "rows");
    const small = new StoreSequence([wide]);
    const tally = await report.time("key wide/rows, 64 KiB pages", () =>
      readKey(wire, session, wide, small, { maxBytes: 64 * KIB })
    );
    expect(small.finish().parts).toBeGreaterThan(4);
    expect(tally.largest).toBeLessThanOrEqual(64 * KIB + 4 * KIB);
  });

  it("gives one entry in parts by its index, whatever the budget", async () => {
    // Wide entries pass the default budget as stored: two parts at least.
    const wide = entrySequence("wide", "rows", 2);
    const wideTally = await report.time("entry wide/rows/2", () =>
      readEntry(wire, session, keyOf("wide", "rows"), 2, wide)
    );
    expect(wide.finish().objects).toBe(1000);
    expect(wideTally.pages).toBeGreaterThanOrEqual(2);
    const regular = entrySequence("alpha", "rows", 24);
    await report.time("entry alpha/rows/24, 16 KiB parts", () =>
      readEntry(wire, session, keyOf("alpha", "rows"), 24, regular, {
        maxBytes: 16 * KIB
      })
    );
    expect(regular.finish().parts).toBeGreaterThan(50);
    // A 1 KiB budget still takes the first object: one 255 KiB object a part.
    const huge = entrySequence("huge", "blobs", 2);
    const hugeTally = await readEntry(
      wire,
      session,
      keyOf("huge", "blobs"),
      2,
      huge,
      { maxBytes: KIB }
    );
    expect(huge.finish().objects).toBe(3);
    expect(hugeTally.pages).toBe(3);
    const empty = entrySequence("huge", "blobs", 1);
    await readEntry(wire, session, keyOf("huge", "blobs"), 1, empty, {
      maxBytes: KIB
    });
    expect(empty.finish().entries).toBe(1);
  });

  it("serves the store as MCP resources: every key listed, every object read once through next_uri", async () => {
    const mcp = new McpReader(wire, session);
    await mcp.initialize();
    const listed = await mcp.list();
    expect(listed.uris).toEqual(
      STORE_PLAN.map((k) => `roost://environment/${k.tool}/${k.name}`)
    );
    const sequence = new StoreSequence();
    for (const key of STORE_PLAN) {
      await report.time(`mcp ${key.tool}/${key.name}`, () =>
        mcp.read(key, sequence)
      );
    }
    expect(sequence.finish().objects).toBe(plannedObjects());
  });

  it("gives every message once, in order, across an abort, and at the 4 MiB maximum", async () => {
    const first = new TranscriptSequence();
    let aborted = 0;
    const tally = await report.time("messages, 1 MiB pages, aborted once", () =>
      readMessages(wire, session, (m) => first.take(m), {
        between: async (page) => {
          if (page === 50) {
            await abort(session);
            aborted++;
          }
        }
      })
    );
    expect(first.finish()).toBe(TranscriptSequence.length);
    expect(aborted).toBe(1);
    expect(tally.truncated).toBeGreaterThan(0);
    const big = new TranscriptSequence();
    await report.time("messages, 4 MiB pages", () =>
      readMessages(wire, session, (m) => big.take(m), {
        maxBytes: 4 * MIB,
        limit: 1000
      })
    );
    expect(big.finish()).toBe(TranscriptSequence.length);
  });

  it("gives every object and message once, in order, through the TypeScript client's iterators", async () => {
    const store = new StoreSequence();
    const transcript = new TranscriptSequence();
    const started = performance.now();
    const read = await readWithClientIterators(
      baseUrl,
      session,
      store,
      transcript
    );
    report.note(
      `client iterators: ${read.entries} entries and ${read.messages} messages in ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
    expect(store.finish().objects).toBe(plannedObjects());
    expect(transcript.finish()).toBe(TranscriptSequence.length);
    expect(read.messages).toBe(TranscriptSequence.length);
  });

  it("opens in the inspector and the chat app in Chromium, newest messages first, without an error", async () => {
    const browser = await launch();
    try {
      const last = TranscriptSequence.length - 1;
      const inspector = await openInspector(browser, baseUrl, session, last);
      report.note(
        `inspector: the newest message shown ${(inspector.ms / 1000).toFixed(1)} s after navigation, ${inspector.shown.length} rows`
      );
      expect(inspector.errors, inspector.errors.join("\n")).toEqual([]);
      // The newest messages, in order, and far from the 601 of the whole.
      const indexes = inspector.shown.map(Number);
      expect(indexes.at(-1)).toBe(last);
      expect(indexes).toEqual(
        indexes.map((_, i) => last - indexes.length + 1 + i)
      );
      expect(indexes.length).toBeLessThan(20);
      const chat = await openChatApp(browser, baseUrl, session);
      report.note(
        `chat app: connected ${(chat.ms / 1000).toFixed(1)} s after navigation`
      );
      expect(chat.errors, chat.errors.join("\n")).toEqual([]);
      expect(chat.shown).toEqual([session.id.slice(0, 12)]);
    } finally {
      await browser.close();
    }
  });

  it("answers status, state, frame, the socket's snapshot and OpenEnv's state", async () => {
    const status = await wire.get<{ steps: number; done: boolean }>(
      session,
      ""
    );
    expect(status).toMatchObject({ steps: STEPS, done: false });
    const { state } = await readState(wire, session);
    expect(state).toEqual({ count: 0 });
    expect((await readState(wire, session, { maxBytes: KIB })).state).toEqual(
      state
    );
    const frame = await wire.get<{
      state: unknown;
      info: { store_keys: { tool: string; name: string }[] };
      truncated?: true;
    }>(session, "/frame");
    expect(frame.state).toEqual(state);
    expect(frame.truncated).toBeUndefined();
    expect(frame.info.store_keys.map((k) => `${k.tool}/${k.name}`)).toEqual(
      STORE_PLAN.map((k) => `${k.tool}/${k.name}`)
    );
    const snapshot = await socketSnapshot(session);
    expect(snapshot.frame.keys).toHaveLength(STORE_PLAN.length);
    expect(snapshot.frame.state).toEqual(state);
    expect(snapshot.bytes).toBeLessThanOrEqual(MIB);
    const openEnv = await openEnvState(baseUrl, "counter", session);
    expect(openEnv.state).toMatchObject({
      session_id: session.id,
      step_count: STEPS,
      values: state
    });
    expect(openEnv.state.values_next_cursor).toBeUndefined();
    report.note(
      `snapshot ${snapshot.bytes} B, OpenEnv state ${openEnv.bytes} B, frame ok`
    );
  });

  it("keeps the event log at its byte limit, and /events and the socket's resume replay exactly what it retains", async () => {
    const oldest = await oldestRetained(wire, session);
    expect(oldest).toBeGreaterThan(1);
    const http = await report.time("events (byte limit), 1 MiB pages", () =>
      readEvents(wire, session, oldest - 1)
    );
    const last = http.events.at(-1)!.seq;
    checkContiguous(http.events, oldest, last);
    const retained = sumBytes(http.events);
    expect(retained).toBeLessThanOrEqual(EVENTS_RETAINED_BYTES);
    expect(retained).toBeGreaterThan(EVENTS_RETAINED_BYTES - MIB);
    const types = new Set(http.events.map((e) => e.type));
    expect(types).toContain("result");
    expect(types).toContain("message");
    await expectSameReads(session, oldest, http.events);
  });

  it("keeps the event log at its count limit, and /events and the socket's resume replay exactly what it retains", async () => {
    const oldest = await oldestRetained(wire, longLog);
    const http = await report.time("events (count limit), 1 MiB pages", () =>
      readEvents(wire, longLog, oldest - 1)
    );
    const last = http.events.at(-1)!.seq;
    // Retention drops whole rows, one per commit: the limit, and less
    // than one step's events above it.
    expect(http.events.length).toBeGreaterThanOrEqual(EVENTS_RETAINED);
    expect(http.events.length).toBeLessThan(
      EVENTS_RETAINED + LONG_STEP_EVENTS_BOUND
    );
    checkContiguous(http.events, oldest, last);
    await expectSameReads(longLog, oldest, http.events);
  });
});
