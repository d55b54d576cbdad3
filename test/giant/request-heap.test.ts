// One request's memory (issue 49): a Durable Object's isolate has 128 MB
// deployed, so no single read or write at its largest budget may hold more
// than 64 MiB of V8 heap. Each request runs after a full collection while
// the heap of the worker's isolate is sampled over the DevTools protocol;
// locally the worker and the object share that isolate, so both ends of
// the request count (an upper bound on the object's own). The inspector
// answers when the isolate is between tasks, so a sample is the heap at
// one of the request's awaits, garbage included.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type DevTools,
  devtools,
  workerTarget
} from "../../bench/lib/devtools";
import { collectGarbage, usedHeap } from "../../bench/lib/memory";
import { addEntry, createCounter, step } from "./build";
import { STORE_PLAN } from "./plan";
import { type SessionRef, Wire } from "./wire";

const MIB = 1024 * 1024;
const REQUEST_HEAP = 64 * MIB;

const wire = new Wire(inject("baseUrl"));
let dt: DevTools;
let session: SessionRef;
const peaks: [string, number][] = [];

const poke = async () => {
  await (await fetch(`${inject("baseUrl")}/health`)).arrayBuffer();
};

/** What `request` added to the heap at its highest, after a full collection. */
const peakOf = async (name: string, request: () => Promise<unknown>) => {
  await collectGarbage(dt, poke);
  const before = await usedHeap(dt);
  let peak = before;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await usedHeap(dt));
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  try {
    await request();
  } finally {
    running = false;
    await sampler;
  }
  peaks.push([name, peak - before]);
  return peak - before;
};

beforeAll(async () => {
  dt = await devtools(await workerTarget(inject("inspectorPort")));
  // Enough of each to fill a 4 MiB page: entries and steps at the 1 MB
  // request limit.
  session = await createCounter(wire);
  const key = STORE_PLAN[0]!;
  for (const entry of key.entries.slice(0, 6))
    await addEntry(wire, session, key, entry);
  for (let s = 0; s < 8; s++) await step(wire, session, s);
}, 600_000);

afterAll(() => {
  process.stdout.write(
    `Heap a request adds, at its largest budget:\n${peaks
      .map(([name, bytes]) => `  ${name}: ${(bytes / MIB).toFixed(1)} MiB`)
      .join("\n")}\n`
  );
  dt?.close();
});

describe("one request's heap", () => {
  it("stays under 64 MiB for a write at the request limit", async () => {
    const key = STORE_PLAN[0]!;
    expect(
      await peakOf("a store add of 1 MB", () =>
        addEntry(wire, session, key, key.entries[6]!)
      )
    ).toBeLessThan(REQUEST_HEAP);
    expect(
      await peakOf("a step of 1 MB", () => step(wire, session, 8))
    ).toBeLessThan(REQUEST_HEAP);
  });

  // Eight results of 1020 KiB: the most one step may stage (8 MiB,
  // stagedBytesPerStep) less their keys and the step's messages.
  it("stays under 64 MiB for a step that stages its limit, 8 MiB", async () => {
    const created = await wire.json<{ session_id: string; token: string }>(
      "POST",
      "/v1/sessions",
      { body: { environment: "bulk" } }
    );
    const bulk = { id: created.session_id, token: created.token, wsUrl: "" };
    await wire.post(bulk, "/reset", {});
    const action = {
      role: "assistant",
      tool_calls: [
        {
          id: "f1",
          type: "function",
          function: {
            name: "fill",
            arguments: JSON.stringify({ results: 8, kb: 1020 })
          }
        }
      ]
    };
    expect(
      await peakOf("a step staging 8 MiB", () =>
        wire.post(bulk, "/step", { action })
      )
    ).toBeLessThan(REQUEST_HEAP);
  });

  // One episode of two steps staging 7 MiB each: a rescore page reads
  // its first episode whole, and a log of 16 MB holds one of about 14 MB
  // with its reset (a larger one loses its reset and is not re-scored).
  it("stays under 64 MiB for a rescore page of a 14 MB episode", async () => {
    const created = await wire.json<{ session_id: string; token: string }>(
      "POST",
      "/v1/sessions",
      { body: { environment: "rescored" } }
    );
    const scored = { id: created.session_id, token: created.token, wsUrl: "" };
    await wire.post(scored, "/reset", {});
    for (const id of ["f1", "f2"]) {
      await wire.post(scored, "/step", {
        action: {
          role: "assistant",
          tool_calls: [
            {
              id,
              type: "function",
              function: {
                name: "fill",
                arguments: JSON.stringify({ results: 7, kb: 1020 })
              }
            }
          ]
        }
      });
    }
    // The log holds the episode whole: every page of it, reset first.
    let logged = 0;
    for (let after = 0; ; ) {
      const { value, bytes } = await wire.page<{
        events: { seq: number; type: string }[];
        next_after: number;
      }>(scored, `/events?max_bytes=${4 * MIB}&limit=1000&after=${after}`);
      if (after === 0) expect(value.events[0]?.type).toBe("reset");
      if (value.events.length === 0) break;
      logged += bytes;
      after = value.next_after;
    }
    expect(logged).toBeGreaterThan(14_000_000);
    // Re-scoring reads the hidden store, so it takes a grader's token.
    const grader = {
      ...scored,
      token: (
        await wire.post<{ token: string }>(scored, "/tokens", {
          scope: "grade"
        })
      ).token
    };
    let page: { episodes: { steps: unknown[] }[] } | undefined;
    const peak = await peakOf("a rescore page of a 14 MB episode", async () => {
      page = (await wire.post(grader, "/rescore", {
        rubric: "counted"
      })) as typeof page;
    });
    // The episode was read and scored, or the test measured nothing.
    expect(page?.episodes).toHaveLength(1);
    expect(page?.episodes[0]?.steps).toHaveLength(2);
    expect(peak).toBeLessThan(REQUEST_HEAP);
  });

  // The session above holds about 16 MB. A fork moves it in chunks of
  // 1 MiB, written to 8 copies at once at most: 8 copies is the most a
  // chunk is held for (64 copies locally also hold 64 objects' own memory
  // in this one isolate; deployed each copy is an object of its own).
  it.each([
    [1, "one copy"],
    [8, "8 copies"]
  ])(
    "stays under 64 MiB for a fork of 16 MB into %i (%s)",
    async (count) => {
      let copies = 0;
      const peak = await peakOf(`a fork of 16 MB into ${count}`, async () => {
        copies = (
          await wire.post<{ sessions: unknown[] }>(session, "/fork", { count })
        ).sessions.length;
      });
      expect(copies).toBe(count);
      expect(peak).toBeLessThan(REQUEST_HEAP);
    },
    120_000
  );

  it.each([
    ["the store", "/environment"],
    ["the transcript", "/messages"],
    ["the event log", "/events"]
  ])(
    "stays under 64 MiB for a page of %s at max_bytes=4 MiB",
    async (what, path) => {
      let bytes = 0;
      const peak = await peakOf(`a 4 MiB page of ${what}`, async () => {
        bytes = (
          await wire.page(session, `${path}?max_bytes=${4 * MIB}&limit=1000`)
        ).bytes;
      });
      // A full page, or the test would measure less than the budget.
      expect(bytes).toBeGreaterThan(3 * MIB);
      expect(peak).toBeLessThan(REQUEST_HEAP);
    }
  );
});
