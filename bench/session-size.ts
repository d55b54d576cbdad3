/**
 * @module Scenario 2: step cost as the store grows (0 … 100 000 objects),
 * the first step after an abort (a cold reload), and the whole-state-in-one-row
 * design refused by SQLite at about 2 MB.
 */

import type { Api, BenchSession } from "./lib/api";
import { interleave, median, progress, timed } from "./lib/stats";
import { bytes, ms, type Row, times } from "./lib/table";

const SIZES = [0, 1_000, 10_000, 100_000] as const;
const WARM_TARGET = 1.2;
const COLD_TARGET = 2;

/** Fails loudly if an abort does not give the next request a new instance. */
const checkAbort = async (api: Api, s: BenchSession): Promise<void> => {
  const instance = async () =>
    ((await api.post(`/bench/instance/${s.id}`, {})) as { instance: string })
      .instance;
  const before = await instance();
  await api.abort(s);
  if ((await instance()) === before) {
    throw new Error("The abort route did not replace the session's instance.");
  }
};

export const sessionSize = async (
  api: Api,
  options: { rounds?: number; coldRounds?: number } = {}
): Promise<Row[]> => {
  const rounds = options.rounds ?? 25;
  const coldRounds = options.coldRounds ?? 15;
  const sessions = new Map<number, BenchSession>();
  let storedBytes = 0;
  for (const size of SIZES) {
    const s = await api.create();
    await api.reset(s);
    progress(`2 session size: seeding ${size} objects`);
    const sent = await api.seed(s, size);
    if (size === 100_000) storedBytes = sent;
    sessions.set(size, s);
  }
  // Every step stores one new object under the key that holds the seeded ones.
  let n = 1_000_000;
  const put = (s: BenchSession) => () =>
    timed(() => api.step(s, "put", { n: n++ }));
  const key = (size: number) => `s${size}`;

  const warm = await interleave(
    Object.fromEntries(
      SIZES.map((size) => [key(size), put(sessions.get(size)!)])
    ),
    { rounds, warmup: 2, block: 5, label: "2 session size (warm)" }
  );
  await checkAbort(api, sessions.get(0)!);
  const cold = await interleave<string>(
    {
      ...Object.fromEntries(
        SIZES.map((size) => {
          const s = sessions.get(size)!;
          return [
            key(size),
            async () => {
              await api.abort(s);
              return put(s)();
            }
          ];
        })
      ),
      baselineWarm: () => timed(() => api.baseline("size", { n: n++ })),
      baselineCold: async () => {
        await api.baselineAbort("size");
        return timed(() => api.baseline("size", { n: n++ }));
      }
    },
    { rounds: coldRounds, warmup: 1, label: "2 session size (cold)" }
  );
  progress("2 session size: growing a whole-state row until SQLite refuses");
  const whole = (await api.post("/bench/baseline/whole-state/whole-state", {
    grow: true
  })) as { lastOkBytes: number; failedAtBytes: number | null; error: string };

  const scenario = "2 Cost vs. session size";
  const at0 = median(warm(key(0)));
  const at100k = median(warm(key(100_000)));
  const rows: Row[] = SIZES.filter((size) => size > 0).map((size) => {
    const m = median(warm(key(size)));
    const last = size === 100_000;
    return {
      scenario,
      measure: `warm step storing 1 object, store holds ${size.toLocaleString("en")} objects (median of ${warm(key(size)).length})`,
      roost: ms(m),
      reference: `0 objects: ${ms(at0)}`,
      ratio: times(m / at0),
      target: last ? `≤ ${WARM_TARGET}×` : "",
      met: last ? m / at0 <= WARM_TARGET : null
    };
  });
  for (const size of SIZES) {
    const m = median(cold(key(size)));
    rows.push({
      scenario,
      measure: `first step after an abort (cold reload), ${size.toLocaleString("en")} objects (median of ${cold(key(size)).length})`,
      roost: ms(m),
      reference: `warm step at 100 000: ${ms(at100k)}`,
      ratio: times(m / at100k),
      target: `≤ ${COLD_TARGET}×`,
      met: m / at100k <= COLD_TARGET
    });
  }
  const bCold = median(cold("baselineCold"));
  const bWarm = median(cold("baselineWarm"));
  rows.push({
    scenario,
    measure: "for scale: the bare DO's first round trip after an abort",
    roost: "",
    reference: `baseline cold ${ms(bCold)} / warm ${ms(bWarm)}`,
    ratio: times(bCold / bWarm),
    target: "",
    met: null
  });
  const failed = whole.failedAtBytes;
  rows.push({
    scenario,
    measure:
      "whole state in one row (the bare DO rewrites one JSON row per change)",
    roost: `store of 100 000 objects ≈ ${bytes(storedBytes)}: steps fine`,
    reference:
      failed === null
        ? "never refused"
        : `refused at ${bytes(failed)} (last ok ${bytes(whole.lastOkBytes)}): ${whole.error.replace(/^Error: /, "")}`,
    ratio: failed === null ? "—" : bytes(failed),
    target: "one-row design fails ≈ 2 MB",
    met: failed !== null && failed < 3 * 1024 * 1024
  });
  return rows;
};
