/**
 * @module Scenario 3: from sending a step to its `step` event arriving at
 * every one of 1, 10 and 100 sockets, and the bytes of the message that
 * carries a step's `result` at store sizes 0 and 10 000. Roost sends a
 * step's events as one `batch` message per socket; the bare DO sends five
 * frames, as Roost once sent one per event.
 */

import {
  type Api,
  type BenchSession,
  open,
  type Subscriber,
  subscribe
} from "./lib/api";
import { interleave, median, percentile, progress } from "./lib/stats";
import { bytes, ms, type Row, times } from "./lib/table";

const FAN = [1, 10, 100] as const;
const LATENCY_TARGET = 2;
const BYTES_TOLERANCE = 0.05;
/** Issue 22: Roost at 100 sockets against the bare DO's five-frame fan-out there. */
const VS_BARE_TARGET = 0.6;

const openSockets = async (
  count: number,
  connect: () => Promise<Subscriber>
): Promise<Subscriber[]> => {
  const sockets: Subscriber[] = [];
  // A few at a time: a hundred handshakes at once only measure the handshake.
  for (let i = 0; i < count; i += 10) {
    const batch = Math.min(10, count - i);
    sockets.push(
      ...(await Promise.all(Array.from({ length: batch }, connect)))
    );
  }
  return sockets;
};

/** Milliseconds from sending the request to its `step` frame at the last socket. */
const fanOutOnce = async (
  sockets: Subscriber[],
  send: () => Promise<unknown>
): Promise<number> => {
  const arrivals = sockets.map((sub) => sub.next("step"));
  const sent = performance.now();
  await send();
  const all = await Promise.all(arrivals);
  return Math.max(...all.map((a) => a.at)) - sent;
};

export const fanOut = async (api: Api, rounds = 40): Promise<Row[]> => {
  const scenario = "3 WebSocket fan-out";
  const probes: Record<string, () => Promise<number>> = {};
  const all: Subscriber[] = [];
  const wsBase = api.baseUrl.replace(/^http/, "ws");
  for (const count of FAN) {
    progress(
      `3 fan-out: opening ${count} socket(s) to a session and to the bare DO`
    );
    const s = await api.create();
    await api.reset(s);
    const subs = await openSockets(count, () => subscribe(s));
    const name = `fan-${count}`;
    const bare = await openSockets(count, () =>
      open(`${wsBase}/bench/baseline/${name}/ws`, [])
    );
    all.push(...subs, ...bare);
    probes[`roost${count}`] = () => fanOutOnce(subs, () => api.step(s, "noop"));
    if (count === 100) {
      // As browsers connect: with permessage-deflate, each frame is
      // compressed once per socket.
      const d = await api.create();
      await api.reset(d);
      const deflated = await openSockets(count, () =>
        subscribe(d, { deflate: true })
      );
      all.push(...deflated);
      probes.deflate100 = () => fanOutOnce(deflated, () => api.step(d, "noop"));
    }
    let n = 0;
    probes[`bare${count}`] = () =>
      fanOutOnce(bare, () =>
        api.post(`/bench/baseline/${name}/broadcast`, { n: n++ })
      );
  }
  const samples = await interleave(probes, {
    rounds,
    warmup: 2,
    block: 3,
    label: "3 fan-out"
  });
  for (const sub of all) sub.ws.close();

  progress("3 fan-out: result frame bytes at store sizes 0 and 10 000");
  const sized = new Map<number, { sub: Subscriber; s: BenchSession }>();
  for (const size of [0, 10_000]) {
    const s = await api.create();
    await api.reset(s);
    await api.seed(s, size);
    sized.set(size, { s, sub: await subscribe(s) });
  }
  const frameBytes = new Map<number, number[]>();
  const snapshotBytes = new Map<number, number>();
  for (let round = 0; round < 5; round++) {
    for (const [size, { s, sub }] of sized) {
      const frame = sub.next("result");
      // The same object number in both sessions: only the store differs.
      await api.step(s, "put", { n: 500_000 + round });
      const list = frameBytes.get(size) ?? [];
      list.push((await frame).bytes);
      frameBytes.set(size, list);
      snapshotBytes.set(size, sub.firstBytes);
    }
  }
  for (const { sub } of sized.values()) sub.ws.close();

  const p50 = (key: string) => median(samples(key));
  const both = (key: string) =>
    `${ms(p50(key))} / ${ms(percentile(samples(key), 99))}`;
  const rows: Row[] = [
    {
      scenario,
      measure: `send step → its \`step\` event at 1 socket, p50 / p99 of ${samples("roost1").length}`,
      roost: both("roost1"),
      reference: `bare DO (append a row, send 5 frames): ${both("bare1")}`,
      ratio: times(p50("roost1") / p50("bare1")),
      target: "",
      met: null
    },
    ...[10, 100].map((count) => ({
      scenario,
      measure: `… at all of ${count} sockets`,
      roost: both(`roost${count}`),
      reference: `Roost at 1 socket: ${ms(p50("roost1"))}`,
      ratio: times(p50(`roost${count}`) / p50("roost1")),
      target: count === 100 ? `p50 ≤ ${LATENCY_TARGET}× of 1 socket` : "",
      met:
        count === 100 ? p50("roost100") / p50("roost1") <= LATENCY_TARGET : null
    })),
    {
      scenario,
      measure: "for scale: the bare DO at 100 sockets vs 1",
      roost: "",
      reference: `${both("bare100")} vs ${both("bare1")}`,
      ratio: times(p50("bare100") / p50("bare1")),
      target: "",
      met: null
    },
    {
      scenario,
      measure:
        "for scale: Roost at 100 sockets that negotiated permessage-deflate, as browsers do (the Node client's zlib is part of it)",
      roost: both("deflate100"),
      reference: `without: ${ms(p50("roost100"))}`,
      ratio: times(p50("deflate100") / p50("roost100")),
      target: "",
      met: null
    },
    {
      scenario,
      measure:
        "Roost (one message per step) vs the bare DO (five frames per step), both at 100 sockets, p50",
      roost: ms(p50("roost100")),
      reference: `bare DO: ${ms(p50("bare100"))}`,
      ratio: times(p50("roost100") / p50("bare100")),
      target: `≤ ${VS_BARE_TARGET}×`,
      met: p50("roost100") / p50("bare100") <= VS_BARE_TARGET
    }
  ];
  const b0 = median(frameBytes.get(0)!);
  const b10k = median(frameBytes.get(10_000)!);
  rows.push({
    scenario,
    measure:
      "bytes of the message carrying a step's `result` (1 object appended; the step's whole batch), store of 10 000 vs 0",
    roost: bytes(b10k),
    reference: `empty store: ${bytes(b0)}`,
    ratio: times(b10k / b0),
    target: `independent of size (±${BYTES_TOLERANCE * 100} %)`,
    met: Math.abs(b10k / b0 - 1) <= BYTES_TOLERANCE
  });
  const s0 = snapshotBytes.get(0)!;
  const s10k = snapshotBytes.get(10_000)!;
  rows.push({
    scenario,
    measure: "for scale: bytes of the `session.snapshot` on connect",
    roost: bytes(s10k),
    reference: `empty store: ${bytes(s0)}`,
    ratio: times(s10k / s0),
    target: "",
    met: null
  });
  return rows;
};
