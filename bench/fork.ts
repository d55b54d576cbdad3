/**
 * @module Scenario 7: forking. The time to copy a session of 0 … 100 000
 * objects next to making a fresh one (create + reset), what a copy costs in
 * bytes, and whether a copy steps as fast as its source.
 */

import type { Api, BenchSession } from "./lib/api";
import { interleave, median, progress, timed } from "./lib/stats";
import { bytes, ms, type Row, times } from "./lib/table";

const SIZES = [0, 1_000, 10_000, 100_000] as const;
const STEP_TARGET = 1.1;

interface Forked {
  copied: { rows: number; bytes: number };
  sessions: { session_id: string; token: string; ws_url: string }[];
}

const fork = (api: Api, s: BenchSession, count = 1): Promise<Forked> =>
  api.post(`/v1/sessions/${s.id}/fork`, { count }, s.token) as Promise<Forked>;

/** Deletes a session made by a probe, outside its timing. */
const drop = async (api: Api, s: BenchSession): Promise<void> => {
  const res = await fetch(`${api.baseUrl}/v1/sessions/${s.id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${s.token}` }
  });
  await res.arrayBuffer();
};

const asSession = (f: Forked, i = 0): BenchSession => {
  const c = f.sessions[i]!;
  return { id: c.session_id, token: c.token, wsUrl: c.ws_url };
};

/** Copies made at once from one snapshot: each chunk is read once, written COUNT times. */
const GROUP = 8;

export const forkScenario = async (
  api: Api,
  options: { rounds?: number; stepRounds?: number } = {}
): Promise<Row[]> => {
  const rounds = options.rounds ?? 5;
  const stepRounds = options.stepRounds ?? 25;
  const sources = new Map<number, BenchSession>();
  for (const size of SIZES) {
    const s = await api.create();
    await api.reset(s);
    progress(`7 fork: seeding ${size} objects`);
    await api.seed(s, size);
    sources.set(size, s);
  }
  const copied = new Map<number, Forked["copied"]>();
  const key = (size: number) => `f${size}`;
  const samples = await interleave<string>(
    {
      ...Object.fromEntries(
        SIZES.map((size) => [
          key(size),
          async () => {
            let made: Forked | undefined;
            const took = await timed(async () => {
              made = await fork(api, sources.get(size)!);
            });
            copied.set(size, made!.copied);
            await drop(api, asSession(made!));
            return took;
          }
        ])
      ),
      group: async () => {
        let made: Forked | undefined;
        const took = await timed(async () => {
          made = await fork(api, sources.get(10_000)!, GROUP);
        });
        await Promise.all(
          made!.sessions.map((_, i) => drop(api, asSession(made!, i)))
        );
        return took;
      },
      fresh: async () => {
        let s: BenchSession | undefined;
        const took = await timed(async () => {
          s = await api.create();
          await api.reset(s);
        });
        await drop(api, s!);
        return took;
      }
    },
    { rounds, warmup: 1, label: "7 fork (copy time)" }
  );

  // A step on a copy against a step on its source, at 10 000 objects.
  const source = sources.get(10_000)!;
  const copy = asSession(await fork(api, source));
  let n = 2_000_000;
  const steps = await interleave(
    {
      source: () => timed(() => api.step(source, "put", { n: n++ })),
      copy: () => timed(() => api.step(copy, "put", { n: n++ }))
    },
    { rounds: stepRounds, warmup: 2, block: 5, label: "7 fork (steps)" }
  );

  const scenario = "7 Fork";
  const fresh = median(samples("fresh"));
  const rows: Row[] = SIZES.map((size) => {
    const m = median(samples(key(size)));
    const c = copied.get(size)!;
    return {
      scenario,
      measure: `fork into 1 copy, ${size.toLocaleString("en")} objects: ${c.rows.toLocaleString("en")} rows, ${bytes(c.bytes)} copied (median of ${samples(key(size)).length})`,
      roost: ms(m),
      reference: `create + reset: ${ms(fresh)}`,
      ratio: times(m / fresh),
      target: "",
      met: null
    };
  });
  const group = median(samples("group"));
  rows.push({
    scenario,
    measure: `fork into ${GROUP} copies at once, 10,000 objects (median of ${samples("group").length})`,
    roost: ms(group),
    reference: `1 copy: ${ms(median(samples(key(10_000))))}`,
    ratio: times(group / median(samples(key(10_000)))),
    target: "",
    met: null
  });
  const onSource = median(steps("source"));
  const onCopy = median(steps("copy"));
  rows.push({
    scenario,
    measure: `step storing 1 object on a copy of a 10 000-object session (median of ${steps("copy").length})`,
    roost: ms(onCopy),
    reference: `on its source: ${ms(onSource)}`,
    ratio: times(onCopy / onSource),
    target: `≤ ${STEP_TARGET}×`,
    met: onCopy / onSource <= STEP_TARGET
  });
  return rows;
};
