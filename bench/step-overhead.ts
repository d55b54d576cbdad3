/** @module Scenario 1: an HTTP step with one trivial tool call against a bare Durable Object round trip that appends one row. */

import type { Api } from "./lib/api";
import { workerdCpuMs } from "./lib/cpu";
import { interleave, median, percentile, progress, timed } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const TARGET = 1.25;

/** Requests per contender and round when weighing CPU. */
const CPU_BATCH = 200;
/** Issue 48: a step's CPU above the floor at most this many times the bare DO's. */
const CPU_TARGET = 1.3;

/**
 * workerd CPU per request of each probe, in batches that alternate, so an
 * object's deferred work stays within its own batch. Undefined without /proc.
 */
const cpuPerRequest = async <K extends string>(
  pgid: number,
  probes: Record<K, () => Promise<unknown>>,
  rounds: number
): Promise<Record<K, number> | undefined> => {
  const keys = Object.keys(probes) as K[];
  const used = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  for (let round = 0; round < rounds; round++) {
    for (const key of keys) {
      const before = workerdCpuMs(pgid);
      if (before === undefined) return undefined;
      for (let i = 0; i < CPU_BATCH; i++) await probes[key]();
      used[key] += (workerdCpuMs(pgid) ?? before) - before;
    }
  }
  for (const key of keys) used[key] /= rounds * CPU_BATCH;
  return used;
};

export const stepOverhead = async (
  api: Api,
  pgid: number,
  rounds = 50
): Promise<Row[]> => {
  progress("1 step overhead: setting up");
  const session = await api.create();
  await api.reset(session);
  let n = 0;
  const samples = await interleave(
    {
      baseline: () => timed(() => api.baseline("overhead", { n: n++ })),
      roost: () => timed(() => api.step(session, "noop")),
      floor: () => timed(() => api.health()),
      viaFetch: () =>
        timed(() => api.post("/bench/baseline/overhead-fetch/fetch", { n }))
    },
    { rounds, warmup: 2, block: 10, label: "1 step overhead" }
  );
  const roost = median(samples("roost"));
  const base = median(samples("baseline"));
  const floor = median(samples("floor"));
  const viaFetch = median(samples("viaFetch"));
  const p99 = (key: "roost" | "baseline") => percentile(samples(key), 99);
  const ratio = roost / base;
  progress("1 step overhead: workerd CPU per request");
  const cpu = await cpuPerRequest(
    pgid,
    {
      baseline: () => api.baseline("overhead", { n: n++ }),
      roost: () => api.step(session, "noop"),
      floor: () => api.health()
    },
    3
  );
  const scenario = "1 Step overhead";
  const cpuRows: Row[] =
    cpu === undefined
      ? []
      : [
          {
            scenario,
            measure: `step CPU above the floor: workerd CPU per request (all its processes, from /proc; ${3 * CPU_BATCH} each) above \`/health\`'s, ÷ the bare DO's`,
            roost: `${ms(cpu.roost)} (${ms(cpu.roost - cpu.floor)} above)`,
            reference: `bare DO ${ms(cpu.baseline)} (${ms(cpu.baseline - cpu.floor)} above); /health ${ms(cpu.floor)}`,
            ratio: times((cpu.roost - cpu.floor) / (cpu.baseline - cpu.floor)),
            target: `≤ ${CPU_TARGET}× (issue 48)`,
            met:
              (cpu.roost - cpu.floor) / (cpu.baseline - cpu.floor) <= CPU_TARGET
          }
        ];
  return [
    {
      scenario,
      measure: `HTTP step with one trivial tool call vs the bare DO: worker reads the JSON, one RPC appends one row (median of ${samples("roost").length}, in runs of 10)`,
      roost: ms(roost),
      reference: `bare DO: ${ms(base)}`,
      ratio: times(ratio),
      target: `≤ ${TARGET}×`,
      met: ratio <= TARGET
    },
    {
      scenario,
      measure: "same, p99",
      roost: ms(p99("roost")),
      reference: ms(p99("baseline")),
      ratio: times(p99("roost") / p99("baseline")),
      target: "",
      met: null
    },
    {
      scenario,
      measure:
        "for scale: time above the floor (`GET /health`, a round trip that wakes no object)",
      roost: ms(roost - floor),
      reference: `${ms(base - floor)} (floor ${ms(floor)})`,
      ratio: times((roost - floor) / (base - floor)),
      target: "",
      met: null
    },
    {
      scenario,
      measure:
        "for scale: the bare DO reached through `stub.fetch(request)` instead of RPC",
      roost: ms(roost),
      reference: `bare DO via fetch: ${ms(viaFetch)}`,
      ratio: times(roost / viaFetch),
      target: "",
      met: null
    },
    ...cpuRows
  ];
};
