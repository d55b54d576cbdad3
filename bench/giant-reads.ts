/**
 * @module Scenario 10: memory while a giant session is read. It builds the
 * giant-session test's session (test/giant: over 200 MB of store, a 300-step
 * transcript of 750 KiB messages, an event log at its byte limit) on a
 * `wrangler dev` of its own with an inspector port, then runs each read
 * from start to end and reports workerd's peak resident set and the
 * isolate's peak V8 heap while it ran, beside the fixed per-page budget
 * (1 MiB by default, 4 MiB at most), and the heap after a full collection
 * once the read ended (what it left behind: nothing, so far). The peaks hold
 * garbage V8 had not collected yet: a transcript of 750 KiB messages leaves
 * large strings that wait for a full collection, while with a collection
 * every ten pages the live heap stays at its idle size. Baselines in the
 * same run: a loop of `/health` and reads of a fresh session, 5 s each.
 */

import { freePort } from "../scripts/free-port.mjs";
import { buildGiant, createCounter } from "../test/giant/build";
import {
  oldestRetained,
  readEvents,
  resumeOverSocket
} from "../test/giant/log-reads";
import { McpReader } from "../test/giant/mcp-reads";
import { STORE_PLAN } from "../test/giant/plan";
import {
  readEntry,
  readKey,
  readMessages,
  readStore
} from "../test/giant/store-reads";
import { StoreSequence } from "../test/giant/store-sequence";
import type { Tally } from "../test/giant/tally";
import { TranscriptSequence } from "../test/giant/transcript-sequence";
import { type SessionRef, Wire } from "../test/giant/wire";
import { devtools, workerTarget } from "./lib/devtools";
import { type MemoryDuring, MemoryProbe, runtimeWorkerd } from "./lib/memory";
import { startServer } from "./lib/server";
import { progress } from "./lib/stats";
import { bytes, type Row } from "./lib/table";

const SCENARIO = "10 Giant reads";
const MIB = 1024 * 1024;

const sign = (n: number): string => (n < 0 ? `−${bytes(-n)}` : `+${bytes(n)}`);

/** A read to measure: its name, its budget per page, and the run (pages and bytes). */
interface Read {
  name: string;
  budget: string;
  /** Unmeasured work the read needs first (where its log starts and ends). */
  before?: () => Promise<void>;
  run: () => Promise<Tally | { pages: number; bytes: number }>;
  /** One request: its heap peak above the idle heap is held to REQUEST_HEAP. */
  single?: boolean;
}

/**
 * What one request may add to the heap: half of a Durable Object's 128 MB
 * isolate (issue 49). Locally the worker and the object share the
 * isolate, so both ends of the request count: an upper bound.
 */
const REQUEST_HEAP = 64 * MIB;

const row = (
  read: Read,
  tally: { pages: number; bytes: number },
  m: MemoryDuring
): Row => ({
  scenario: SCENARIO,
  measure: `${read.name}: ${tally.pages} pages, ${bytes(tally.bytes)} in ${(m.ms / 1000).toFixed(1)} s`,
  roost: `peak RSS ${bytes(m.rssPeak)}; peak heap ${bytes(m.heapPeak)}`,
  reference: `before: RSS ${bytes(m.rssBefore)}; heap ${bytes(m.heapBefore)}`,
  ratio: `+${bytes(m.rssPeak - m.rssBefore)} RSS, +${bytes(m.heapPeak - m.heapBefore)} heap; after GC ${sign(m.heapAfter - m.heapBefore)}`,
  target: read.single
    ? `≤ ${bytes(REQUEST_HEAP)} heap a request (budget ${read.budget})`
    : `budget ${read.budget} a page`,
  met: read.single ? m.heapPeak - m.heapBefore <= REQUEST_HEAP : null
});

/** Repeats `request` for about `ms`, counting its pages and bytes. */
const loopFor = async (
  ms: number,
  request: () => Promise<number>
): Promise<{ pages: number; bytes: number }> => {
  const until = performance.now() + ms;
  const out = { pages: 0, bytes: 0 };
  while (performance.now() < until) {
    out.bytes += await request();
    out.pages++;
  }
  return out;
};

/**
 * One request each at the largest budget (4 MiB), from the middle of what
 * it reads, after a full collection: what a single request holds at once.
 */
const singleRequests = (wire: Wire, giant: SessionRef): Read[] =>
  [
    ["the store", "/environment?max_bytes=4194304&limit=1000"],
    ["the transcript", "/messages?max_bytes=4194304&limit=1000&cursor=300"],
    ["the event log", "/events?max_bytes=4194304&limit=10000"]
  ].map(([what, path]) => ({
    name: `one request of ${what} at max_bytes=4 MiB`,
    budget: "4 MiB",
    single: true,
    run: async () => ({
      pages: 1,
      bytes: (await wire.page(giant, path!)).bytes
    })
  }));

/** The reads of the giant session, each checked object by object as the test does. */
const readsOf = (wire: Wire, giant: SessionRef): Read[] => {
  const alpha = STORE_PLAN[0]!;
  const wide = STORE_PLAN.find((k) => k.tool === "wide")!;
  const log = { oldest: 0, last: 0 };
  return [
    {
      name: "whole store (208 MB), default pages",
      budget: "1 MiB",
      run: async () => {
        const seq = new StoreSequence();
        const tally = await readStore(wire, giant, seq);
        seq.finish();
        return tally;
      }
    },
    {
      name: "whole store, max_bytes=4 MiB",
      budget: "4 MiB",
      run: async () => {
        const seq = new StoreSequence();
        const tally = await readStore(wire, giant, seq, {
          maxBytes: 4 * MIB,
          limit: 1000
        });
        seq.finish();
        return tally;
      }
    },
    {
      name: `one key (${alpha.tool}/${alpha.name}, 25 MB)`,
      budget: "1 MiB",
      run: async () => {
        const seq = new StoreSequence([alpha]);
        const tally = await readKey(wire, giant, alpha, seq);
        seq.finish();
        return tally;
      }
    },
    {
      name: "one entry by index, in parts (wide/rows/3)",
      budget: "1 MiB",
      run: () => readEntry(wire, giant, wide, 3, new StoreSequence([wide], 3))
    },
    {
      name: `MCP resources/read of ${alpha.tool}/${alpha.name} through next_uri`,
      budget: "1 MiB",
      run: async () => {
        const mcp = new McpReader(wire, giant);
        await mcp.initialize();
        const seq = new StoreSequence([alpha]);
        const tally = await mcp.read(alpha, seq);
        seq.finish();
        return tally;
      }
    },
    {
      name: "transcript (601 messages, 230 MiB), default pages",
      budget: "1 MiB",
      run: async () => {
        const seq = new TranscriptSequence();
        const tally = await readMessages(wire, giant, (m) => seq.take(m));
        seq.finish();
        return tally;
      }
    },
    {
      name: "transcript, max_bytes=4 MiB",
      budget: "4 MiB",
      run: async () => {
        const seq = new TranscriptSequence();
        const tally = await readMessages(wire, giant, (m) => seq.take(m), {
          maxBytes: 4 * MIB,
          limit: 1000
        });
        seq.finish();
        return tally;
      }
    },
    ...singleRequests(wire, giant),
    {
      name: "event log at 16 MiB, /events default pages",
      budget: "1 MiB",
      run: async () =>
        (await readEvents(wire, giant, (await oldestRetained(wire, giant)) - 1))
          .tally
    },
    {
      name: "event log, /events max_bytes=4 MiB",
      budget: "4 MiB",
      run: async () =>
        (
          await readEvents(
            wire,
            giant,
            (await oldestRetained(wire, giant)) - 1,
            { maxBytes: 4 * MIB, limit: 10_000 }
          )
        ).tally
    },
    {
      name: "event log, the socket's resume",
      budget: "1 MiB",
      before: async () => {
        log.oldest = await oldestRetained(wire, giant);
        const { events } = await readEvents(wire, giant, log.oldest - 1);
        log.last = events.at(-1)!.seq;
      },
      run: async () => {
        const replay = await resumeOverSocket(giant, log.oldest - 1, log.last);
        return {
          pages: replay.messages,
          bytes: replay.events.reduce((n, e) => n + e.bytes, 0)
        };
      }
    }
  ];
};

export const giantReads = async (root: string): Promise<Row[]> => {
  const inspector = await freePort();
  progress("10 giant reads: starting wrangler dev with an inspector port");
  const server = await startServer(root, [
    "--inspector-port",
    String(inspector)
  ]);
  const dt = await devtools(await workerTarget(inspector));
  try {
    const port = Number(new URL(server.baseUrl).port);
    const health = async () => {
      const res = await fetch(`${server.baseUrl}/health`);
      return (await res.arrayBuffer()).byteLength;
    };
    const probe = new MemoryProbe(
      runtimeWorkerd(server.pgid, port),
      dt,
      health
    );
    const wire = new Wire(server.baseUrl);
    progress("10 giant reads: building the giant session (about 2 minutes)");
    const built = await buildGiant(wire, (line) =>
      progress(`10 giant reads: ${line}`)
    );
    const rows: Row[] = [];
    const tiny = await createCounter(wire);
    const baselines: Read[] = [
      {
        name: "baseline: GET /health for 5 s",
        budget: "—",
        run: () => loopFor(5000, health)
      },
      {
        name: "baseline: a fresh session's store, transcript and events for 5 s",
        budget: "1 MiB",
        run: () =>
          loopFor(5000, async () => {
            let n = 0;
            for (const path of ["/environment", "/messages", "/events"]) {
              n += (await wire.page(tiny, path)).bytes;
            }
            return n;
          })
      }
    ];
    for (const read of [...baselines, ...readsOf(wire, built.session)]) {
      progress(`10 giant reads: ${read.name}`);
      await read.before?.();
      const { value, memory } = await probe.during(read.run);
      rows.push(row(read, value, memory));
    }
    return rows;
  } finally {
    dt.close();
    await server.stop();
  }
};
