/**
 * @module Scenario 18: forking at a past step. A branchable session of
 * 10 000 stored objects plays 1 001 steps; a fork of it at step 10, 100
 * and 1 000 (the episode's events replayed up to the step into a scratch
 * episode, then copied as any fork) is timed against a fork of the same
 * session as it stands. Target: at step 1 000, at most twice the live fork.
 */

import type { Api, BenchSession } from "./lib/api";
import { interleave, median, progress } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const SCENARIO = "18 Branch";
const OBJECTS = 10_000;
const STEPS = 1_001;
const AT = [10, 100, 1_000] as const;
const TARGET = 2;

interface Forked {
  copied: { rows: number; bytes: number };
  sessions: { session_id: string; token: string }[];
}

const drop = async (api: Api, id: string, token: string): Promise<void> => {
  const res = await fetch(`${api.baseUrl}/v1/sessions/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${token}` }
  });
  await res.arrayBuffer();
};

/** One fork's wall time; the copy is deleted outside it. */
const timedFork = async (
  api: Api,
  s: BenchSession,
  step?: number
): Promise<number> => {
  const started = performance.now();
  const forked = (await api.post(
    `/v1/sessions/${s.id}/fork`,
    step === undefined ? { count: 1 } : { count: 1, step },
    s.token
  )) as Forked;
  const took = performance.now() - started;
  const copy = forked.sessions[0]!;
  await drop(api, copy.session_id, copy.token);
  return took;
};

export const branchScenario = async (
  api: Api,
  options: { rounds?: number } = {}
): Promise<Row[]> => {
  const rounds = options.rounds ?? 5;
  const s = await api.create("bench-branchable");
  await api.reset(s);
  progress(`18 branch: seeding ${OBJECTS} objects`);
  await api.seed(s, OBJECTS);
  progress(`18 branch: ${STEPS} steps`);
  for (let i = 0; i < STEPS; i++) await api.step(s, "noop");
  const samples = await interleave<string>(
    {
      live: () => timedFork(api, s),
      ...Object.fromEntries(
        AT.map((at) => [`at${at}`, () => timedFork(api, s, at)])
      )
    },
    { rounds, warmup: 1, label: "18 branch: forks" }
  );
  const live = median(samples("live"));
  return [
    {
      scenario: SCENARIO,
      measure: `fork of a branchable session as it stands (${OBJECTS} objects, ${STEPS} steps; median of ${rounds})`,
      roost: ms(live),
      reference: "",
      ratio: "",
      target: "",
      met: null
    },
    ...AT.map((at) => {
      const took = median(samples(`at${at}`));
      const ratio = took / live;
      return {
        scenario: SCENARIO,
        measure: `fork at step ${at} of the same session ÷ its fork as it stands (median of ${rounds})`,
        roost: ms(took),
        reference: `as it stands: ${ms(live)}`,
        ratio: times(ratio),
        target: at === 1_000 ? `≤ ${TARGET}×` : "",
        met: at === 1_000 ? ratio <= TARGET : null
      };
    })
  ];
};
