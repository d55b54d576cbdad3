/**
 * @module Scenario 8: the Cloudflare Agents SDK as a contender. One workerd
 * serves Roost and an `Agent` (bench/agents/agent.ts) whose state is a list
 * grown by one object per call through the SDK's `setState`. Both are
 * driven over their own WebSocket protocols: Roost's `step` frame answered
 * by a `reply`, and the SDK's `rpc` frame answered by an `rpc` reply — the
 * frames its `AgentClient.call` sends and reads. Measures an append as the
 * list grows, where the SDK's one state row stops fitting, an append's
 * broadcast to 1 / 10 / 100 clients, and the bytes a client receives per
 * append.
 */

import {
  agentsSdk,
  type Contender,
  RpcError,
  roost,
  rpc
} from "./agents-sdk-contenders";
import type { Api } from "./lib/api";
import type { Growth } from "./lib/growth";
import type { Peer } from "./lib/peer";
import { interleave, median, percentile, progress } from "./lib/stats";
import { bytes, ms, type Row, times } from "./lib/table";

const SIZES = [0, 1_000, 5_000, 10_000] as const;
const FAN = [1, 10, 100] as const;
/** The list size for the broadcast and bytes measures. */
const FAN_SIZE = 1_000;
/** Objects per set-up call while a list grows to its size. */
const SEED_BATCH = 1_000;

/** Grows an Agent's list by objects `from` … `to - 1`, `batch` per call; answers a refusal, or null. */
const grow = async (
  peer: Peer,
  from: number,
  to: number,
  batch = SEED_BATCH
): Promise<{ reached: Growth | null; refused: Growth | null }> => {
  let reached: Growth | null = null;
  for (let at = from; at < to; at += batch) {
    const growth = (await rpc(peer, "grow", [at, Math.min(batch, to - at)]))
      .result as Growth;
    if (growth.error !== null) return { reached, refused: growth };
    reached = growth;
  }
  return { reached, refused: null };
};

interface Limit {
  lastOk: Growth;
  refused: Growth;
  /** What the measured call (`append`) answered at the limit. */
  appendError: string;
}

/**
 * Grows an Agent's list towards `target` items, a thousand objects per call,
 * then by 100, 10 and 1 once SQLite refuses the state row (a refused state
 * is not kept): the exact item count where the SDK stops, or null if it
 * never does below `target`.
 */
const findLimit = async (peer: Peer, target: number): Promise<Limit | null> => {
  let lastOk: Growth = { items: 0, bytes: 0, error: null };
  let refused: Growth | null = null;
  for (const batch of [SEED_BATCH, 100, 10, 1]) {
    const step = await grow(peer, lastOk.items, target, batch);
    if (step.reached !== null) lastOk = step.reached;
    if (step.refused === null) return null;
    refused = step.refused;
  }
  let appendError = "append succeeded";
  try {
    await rpc(peer, "append", [lastOk.items]);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    appendError = error.message;
  }
  return { lastOk, refused: refused!, appendError };
};

const openPeers = async (
  count: number,
  connect: () => Promise<Peer>
): Promise<Peer[]> => {
  const peers: Peer[] = [];
  // A few at a time: a hundred handshakes at once only measure the handshake.
  for (let i = 0; i < count; i += 10) {
    const batch = Math.min(10, count - i);
    peers.push(...(await Promise.all(Array.from({ length: batch }, connect))));
  }
  return peers;
};

/** Milliseconds from sending an append on `peers[0]` to its update frame at the last of `peers`. */
const broadcastOnce = async <I>(
  c: Contender<I>,
  peers: Peer[],
  n: number
): Promise<number> => {
  const arrivals = peers.map((p) => p.next(c.isUpdate, "update frame"));
  const sent = performance.now();
  const reply = c.append(peers[0]!, n);
  const all = await Promise.all(arrivals);
  await reply;
  return Math.max(...all.map((a) => a.at)) - sent;
};

/** Bytes `watcher` receives for one append sent on `caller`, up to and including its update frame. */
const bytesOnce = async <I>(
  c: Contender<I>,
  caller: Peer,
  watcher: Peer,
  n: number
): Promise<{ bytes: number; frames: number }> => {
  const stop = watcher.record();
  const update = watcher.next(c.isUpdate, "update frame");
  await Promise.all([c.append(caller, n), update]);
  const sizes = stop();
  return { bytes: sizes.reduce((a, b) => a + b, 0), frames: sizes.length };
};

/** Milliseconds from sending an append to its reply. */
const timedAppend = async <I>(
  c: Contender<I>,
  peer: Peer,
  n: number
): Promise<number> => {
  const sent = performance.now();
  return (await c.append(peer, n)).at - sent;
};

export const agentsSdkScenario = async (
  api: Api,
  options: { rounds?: number; fanRounds?: number } = {}
): Promise<Row[]> => {
  const rounds = options.rounds ?? 30;
  const fanRounds = options.fanRounds ?? 25;
  const agents = agentsSdk(api.baseUrl);
  const peers: Peer[] = [];
  const open = async (count: number, connect: () => Promise<Peer>) => {
    const opened = await openPeers(count, connect);
    peers.push(...opened);
    return opened;
  };
  // The k-th append of a measure stores the same object n in both contenders.
  const counters = new Map<string, number>();
  const nextN = (key: string) => {
    const n = counters.get(key) ?? 1_000_000;
    counters.set(key, n + 1);
    return n;
  };
  const roostSession = async (size: number) => {
    const s = await api.create();
    await api.reset(s);
    return { s, seeded: await api.seed(s, size) };
  };

  // ---- Where the SDK's one state row stops fitting, then an append as the list grows.
  const largest = SIZES[SIZES.length - 1]!;
  progress(
    `8 Agents SDK: growing an Agent's list towards ${largest} items until its state row is refused`
  );
  const [limitPeer] = await openPeers(1, () => agents.connect("limit"));
  const limit = await findLimit(limitPeer!, largest);
  limitPeer!.ws.close();
  const fits = (size: number) => limit === null || size <= limit.lastOk.items;

  const appendProbes: Record<string, () => Promise<number>> = {};
  let roostLargestBytes = 0;
  for (const size of SIZES) {
    progress(`8 Agents SDK: growing both contenders to ${size} items`);
    const { s, seeded } = await roostSession(size);
    if (size === largest) roostLargestBytes = seeded;
    const [rp] = await open(1, () => roost.connect(s));
    // Both contenders' k-th append at one size stores the same object.
    appendProbes[`roost${size}`] = () =>
      timedAppend(roost, rp!, nextN(`roost-append${size}`));
    if (!fits(size)) continue;
    const [ap] = await open(1, () => agents.connect(`append-${size}`));
    const { refused } = await grow(ap!, 0, size);
    if (refused !== null)
      throw new Error(`The Agent refused ${size} items: ${refused.error}`);
    appendProbes[`agents${size}`] = () =>
      timedAppend(agents, ap!, nextN(`agents-append${size}`));
  }
  const append = await interleave(appendProbes, {
    rounds,
    warmup: 2,
    block: 5,
    label: "8 Agents SDK (append)"
  });

  // ---- Broadcast to 1 / 10 / 100 clients, and bytes per append.
  const fanProbes: Record<string, () => Promise<number>> = {};
  const fanPeers = new Map<string, Peer[]>();
  for (const count of FAN) {
    progress(
      `8 Agents SDK: ${count} client(s) each on a ${FAN_SIZE}-item Roost session and Agent`
    );
    const { s } = await roostSession(FAN_SIZE);
    const rPeers = await open(count, () => roost.connect(s));
    const name = `fan-${count}`;
    const aPeers = await open(1, () => agents.connect(name));
    const { refused } = await grow(aPeers[0]!, 0, FAN_SIZE);
    if (refused !== null)
      throw new Error(`The Agent refused ${FAN_SIZE} items: ${refused.error}`);
    aPeers.push(...(await open(count - 1, () => agents.connect(name))));
    fanPeers.set(`roost${count}`, rPeers);
    fanPeers.set(`agents${count}`, aPeers);
    fanProbes[`roost${count}`] = () =>
      broadcastOnce(roost, rPeers, nextN(`roost-fan${count}`));
    fanProbes[`agents${count}`] = () =>
      broadcastOnce(agents, aPeers, nextN(`agents-fan${count}`));
  }
  const fan = await interleave(fanProbes, {
    rounds: fanRounds,
    warmup: 2,
    block: 3,
    label: "8 Agents SDK (broadcast)"
  });

  progress("8 Agents SDK: bytes a watching client receives per append");
  const sent = { roost: [] as number[], agents: [] as number[] };
  let roostFrames = 0;
  const [rCaller, rWatcher] = fanPeers.get("roost10")!;
  const [aCaller, aWatcher] = fanPeers.get("agents10")!;
  for (let round = 0; round < 5; round++) {
    const r = await bytesOnce(roost, rCaller!, rWatcher!, nextN("roost-fan10"));
    sent.roost.push(r.bytes);
    roostFrames = r.frames;
    const a = await bytesOnce(
      agents,
      aCaller!,
      aWatcher!,
      nextN("agents-fan10")
    );
    sent.agents.push(a.bytes);
  }
  for (const p of peers) p.ws.close();

  // ---- Rows.
  const scenario = "8 Agents SDK";
  const rows: Row[] = SIZES.map((size) => {
    const r = median(append(`roost${size}`));
    const a = fits(size) ? median(append(`agents${size}`)) : Number.NaN;
    return {
      scenario,
      measure: `one call appending 1 object over the socket (Roost: \`step\` frame → \`reply\`; SDK: \`rpc\` frame → \`rpc\` reply), list of ${count(size)} items (median of ${append(`roost${size}`).length})`,
      roost: ms(r),
      reference: fits(size)
        ? `Agents SDK (\`setState\`): ${ms(a)}`
        : `Agents SDK: fails (state row refused past ${count(limit!.lastOk.items)} items)`,
      ratio: fits(size) ? times(r / a) : "—",
      target: "",
      met: null
    };
  });
  rows.push({
    scenario,
    measure:
      "Agents SDK list grown until SQLite refuses its state row (the SDK rewrites the whole state as one row per change)",
    roost: `${count(largest)} objects (${bytes(roostLargestBytes)} of JSON): appends fine`,
    reference:
      limit === null
        ? `never refused up to ${count(largest)} items`
        : `refused at ${count(limit.refused.items)} items = ${count(limit.refused.bytes)} B of JSON (last ok ${count(limit.lastOk.items)} items = ${count(limit.lastOk.bytes)} B): ${clean(limit.refused.error)}; \`append\` there: ${clean(limit.appendError)}`,
    ratio:
      limit === null
        ? "—"
        : `${count(limit.refused.items)} items, ${bytes(limit.refused.bytes)}`,
    target: "",
    met: null
  });
  for (const clients of FAN) {
    const r = fan(`roost${clients}`);
    const a = fan(`agents${clients}`);
    rows.push({
      scenario,
      measure: `send an append → its update frame at all of ${clients} client(s), list of ${count(FAN_SIZE)} items, p50 / p99 of ${r.length}`,
      roost: `${ms(median(r))} / ${ms(percentile(r, 99))}`,
      reference: `Agents SDK (\`cf_agent_state\`): ${ms(median(a))} / ${ms(percentile(a, 99))}`,
      ratio: times(median(r) / median(a)),
      target: "",
      met: null
    });
  }
  const rb = median(sent.roost);
  const ab = median(sent.agents);
  rows.push({
    scenario,
    measure: `bytes a watching client receives per append, list of ${count(FAN_SIZE)} items (median of ${sent.roost.length})`,
    roost: `${bytes(rb)} in ${roostFrames} message${roostFrames === 1 ? "" : "s"} (the step's events)`,
    reference: `Agents SDK: ${bytes(ab)} in 1 \`cf_agent_state\` frame (the whole state)`,
    ratio: rb / ab < 0.1 ? `${(rb / ab).toFixed(4)}×` : times(rb / ab),
    target: "",
    met: null
  });
  return rows;
};

const count = (n: number): string => n.toLocaleString("en");

/** An error's text without the `Error: ` prefix. */
const clean = (error: string | null): string =>
  (error ?? "").replace(/^Error: /, "");
