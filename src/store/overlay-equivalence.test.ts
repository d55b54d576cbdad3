/** @module Property: a session's parts behind overlays behave exactly like plain memory ones, before and after flush. */

import { describe, expect, it } from "vitest";
import { RoostError } from "../errors";
import type { JsonObject, JsonValue } from "../json";
import { fixture } from "../state/case-helpers";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import {
  OverlayStateBackend,
  OverlayTranscriptBackend
} from "../state/overlay-backend";
import { State } from "../state/state";
import type { StateBackend, TranscriptBackend } from "../state/types";
import type { EntryDisplay } from "./display";
import { createEnvironmentStore } from "./environment-store";
import { OverlayHiddenStore } from "./hidden-overlay";
import { MemoryHiddenStore } from "./hidden-store";
import { MemoryStoreBackend } from "./memory-backend";
import { OverlayStoreBackend } from "./overlay-backend";
import { prng } from "./overlay-helpers.case";
import type { EnvironmentStore, HiddenStore, StoreBackend } from "./types";

interface Backends {
  store: StoreBackend;
  hidden: HiddenStore;
  state: StateBackend;
  transcript: TranscriptBackend;
}

interface World {
  store: EnvironmentStore;
  hidden: HiddenStore;
  state: State<typeof fixture.shape>;
}

const memory = (): Backends => ({
  store: new MemoryStoreBackend(),
  hidden: new MemoryHiddenStore(),
  state: new MemoryStateBackend(),
  transcript: new MemoryTranscriptBackend()
});

const worldOf = (b: Backends): World => ({
  store: createEnvironmentStore(b.store),
  hidden: b.hidden,
  state: new State(fixture, b.state, b.transcript)
});

const overlaysOver = (base: Backends) => {
  const parts = {
    store: new OverlayStoreBackend(base.store),
    hidden: new OverlayHiddenStore(base.hidden),
    state: new OverlayStateBackend(base.state),
    transcript: new OverlayTranscriptBackend(base.transcript)
  };
  const all = Object.values(parts);
  return {
    world: worldOf(parts),
    flush: () => {
      for (const o of all) o.flush();
    },
    discard: () => {
      for (const o of all) o.discard();
    }
  };
};

type Rng = ReturnType<typeof prng>;
type Op = (w: World) => unknown;

const TOOLS = ["q", "r"] as const;
const NAMES = ["a", "b"] as const;
const HIDDEN_KEYS = ["h1", "h2", "h3", "__proto__"] as const;

const randomObject = (rng: Rng): JsonObject => {
  const v = rng.int(6);
  switch (rng.int(8)) {
    case 0:
      return { _REF_ID: "own", v };
    case 1:
      return { object_info: "[repeat]", _REF_ID: "q_a_1_0" };
    case 2:
      return { v, w: [v, { deep: v }] };
    default:
      return { v };
  }
};

const objects = (rng: Rng, max: number): JsonObject[] =>
  Array.from({ length: rng.int(max + 1) }, () => randomObject(rng));

const index = (rng: Rng): number | undefined =>
  rng.int(4) === 0 ? undefined : rng.int(7) - 3;

/** No display, a payload type, or a payload type with a mapping: each backend must keep exactly what was given. */
const display = (rng: Rng): EntryDisplay => {
  const kind = rng.int(3);
  if (kind === 0) return {};
  const payloadType = rng.pick(["table", "document"]);
  return kind === 1
    ? { payloadType }
    : { payloadType, mapping: { shown: `k${rng.int(3)}`, gone: "" } };
};

/** One random operation; drawing it consumes the PRNG once, whatever worlds it is applied to. */
const randomOp = (rng: Rng): Op => {
  const tool = rng.pick(TOOLS);
  const name = rng.pick(NAMES);
  const dupes = { includeDuplicates: rng.int(5) === 0 };
  const metadata = { m: rng.int(3) };
  const shown = display(rng);
  switch (rng.int(12)) {
    case 0:
    case 1: {
      const result = { name, objects: objects(rng, 4), ...shown };
      return (w) => w.store.add(tool, result, dupes);
    }
    case 2:
    case 3: {
      const list = objects(rng, 4);
      const options = { ...dupes, ...shown };
      return (w) => w.store.addObjects(tool, name, list, metadata, options);
    }
    case 4:
    case 5: {
      const [list, at] = [objects(rng, 3), index(rng)];
      return (w) => w.store.replace(tool, name, list, metadata, at, shown);
    }
    case 6: {
      const at = rng.int(6) === 0 ? undefined : rng.int(7) - 3;
      return (w) => w.store.remove(tool, name, at);
    }
    case 7: {
      const at = rng.int(7) - 3;
      return (w) => w.store.find(tool, name, at);
    }
    case 8: {
      const [key, value] = [rng.pick(HIDDEN_KEYS), { n: rng.int(100) }];
      return (w) => w.hidden.set(key, value);
    }
    case 9: {
      const key = rng.pick(HIDDEN_KEYS);
      return (w) => w.hidden.delete(key);
    }
    case 10: {
      const [count, tag] = [rng.int(50), `t${rng.int(5)}`];
      return (w) => [w.state.set("count", count), w.state.set("tags", tag)];
    }
    default: {
      const content = `turn ${rng.int(1000)}`;
      return (w) => w.state.set("messages", { role: "user", content });
    }
  }
};

const outcome = (op: Op, w: World): unknown => {
  try {
    return { ok: op(w) ?? null };
  } catch (error) {
    if (error instanceof RoostError) return { error: error.code };
    throw error;
  }
};

/** Everything a client, a tool or the model can see of a world. */
const snapshot = (w: World) => ({
  json: w.store.toJSON(),
  keys: w.store.keys(),
  empty: w.store.isEmpty(),
  recent5: w.store.recent(5),
  recentAll: w.store.recent(10_000),
  page: w.store.page({ limit: 3 }),
  view: w.store.llmView({ maxBytes: 1500 }),
  hidden: w.hidden
    .keys()
    .map((k): [string, JsonValue | undefined] => [k, w.hidden.get(k)]),
  state: w.state.toJSON(),
  messages: w.state.get("messages")
});

const counters = (b: Backends) =>
  TOOLS.flatMap((t) => NAMES.map((n) => b.store.entryCounter(t, n)));

const runProperty = (seed: number, rounds: number, opsPerRound: number) => {
  const rng = prng(seed);
  const plainBackends = memory();
  const plain = worldOf(plainBackends);
  const base = memory();
  const baseWorld = worldOf(base);
  // The same seeded history on both sides, so the overlays start on a full base.
  for (let i = 0; i < 40; i++) {
    const op = randomOp(rng);
    expect(outcome(op, baseWorld)).toEqual(outcome(op, plain));
  }
  let compared = 0;
  for (let round = 0; round < rounds; round++) {
    const overlays = overlaysOver(base);
    const commit = rng.int(4) !== 0;
    const before = { view: snapshot(baseWorld), counters: counters(base) };
    for (let i = 0; i < opsPerRound; i++) {
      const op = randomOp(rng);
      const got = outcome(op, overlays.world);
      if (!commit) continue;
      expect(got).toEqual(outcome(op, plain));
      expect(snapshot(overlays.world)).toEqual(snapshot(plain));
      compared++;
    }
    if (commit) {
      overlays.flush();
      expect(snapshot(baseWorld)).toEqual(snapshot(plain));
      expect(counters(base)).toEqual(counters(plainBackends));
      expect(base.store.totalObjects()).toBe(
        plainBackends.store.totalObjects()
      );
    } else {
      overlays.discard();
      expect(snapshot(baseWorld)).toEqual(before.view);
      expect(counters(base)).toEqual(before.counters);
      expect(snapshot(overlays.world)).toEqual(before.view);
    }
  }
  return compared;
};

describe("overlays over a memory base", () => {
  for (const seed of [1, 7, 2024]) {
    it(`match plain memory op by op and after flush (seed ${seed})`, () => {
      expect(runProperty(seed, 10, 30)).toBeGreaterThan(100);
    });
  }
});
