/**
 * @module Scenario 11's no-op steps: the same step in the bench environment,
 * in its branchable twin (what keeping the history a fork at a past step
 * replays costs), and in its two multi-agent twins (what taking turns, and
 * a turn the environment plays inside the step, cost beside one agent).
 */

import {
  billOf,
  type Measured,
  N,
  run,
  STEPS_PER_EPISODE,
  storedBytes
} from "./bill-measure";
import type { Api, BenchSession } from "./lib/api";
import { progress } from "./lib/stats";

/** The no-op steps scenario 11 bills, by environment. */
const STEP_KINDS: Record<string, string> = {
  bench: "not branchable",
  "bench-branchable": "branchable",
  "bench-agents": "one of two agents taking turns",
  "bench-played": "an agent's, with the turn the environment plays in it"
};

export const noopStepRows = async (
  api: Api,
  pgid: number
): Promise<Measured[]> => {
  const out: Measured[] = [];
  progress("11 bill: a no-op step, branchable, multi-agent or not");
  for (const environment of [
    "bench",
    "bench-branchable",
    "bench-agents",
    "bench-played"
  ]) {
    const plain: BenchSession[] = [];
    for (let i = 0; i < N; i++) {
      const s = await api.create(environment);
      await api.reset(s);
      plain.push(s);
    }
    await billOf(api, plain, 1);
    const before = await storedBytes(api, plain);
    const steps = await run(pgid, N * STEPS_PER_EPISODE, (i) =>
      api.step(plain[i % N]!, "noop")
    );
    const grown = (await storedBytes(api, plain)) - before;
    out.push({
      operation: `no-op step, ${STEP_KINDS[environment]} (${Math.round(grown / STEPS_PER_EPISODE)} B stored a step)`,
      ...steps,
      ...(await billOf(api, plain, N * STEPS_PER_EPISODE))
    });
  }
  return out;
};
