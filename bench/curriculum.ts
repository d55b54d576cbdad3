/**
 * @module Scenario 14: task sampling. The same calculator run, groups of 8
 * over 12 tasks — four always solved, four never, four solved half the
 * time at random — once with uniform draws and once with the curriculum,
 * over the same number of groups. The figure is the share of groups whose
 * returns were not all equal: the only ones a GRPO update learns from.
 * Not a timing: the run's length does not enter the verdict.
 */

import { rollout, seededRandom, TaskStats } from "../src/client/index";
import { tieredPolicy } from "../test/node/helpers/tiered-policy";
import type { Api } from "./lib/api";
import { progress } from "./lib/stats";
import type { Row } from "./lib/table";

const GROUP = 8;
const TASKS = 12;
/** BENCH_CURRICULUM_GROUPS scales the run (default 40 groups per sampler). */
const GROUPS = Number(process.env.BENCH_CURRICULUM_GROUPS ?? 40);

const share = (x: number | null | undefined): string =>
  x === null || x === undefined ? "—" : `${(100 * x).toFixed(1)} %`;

const signalShare = async (
  api: Api,
  sampler: "uniform" | "curriculum"
): Promise<number | null> => {
  progress(`14 curriculum: ${GROUPS} groups of ${GROUP}, ${sampler}`);
  const coin = seededRandom(11);
  const { summary } = await rollout({
    baseUrl: api.baseUrl,
    environment: "calculator",
    policy: tieredPolicy({ count: TASKS, mixed: () => coin() < 0.5 }),
    episodes: GROUP * GROUPS,
    groupSize: GROUP,
    // Two groups at a time: a draw may miss the outcome of the group
    // beside it, as with any trainer that runs groups in parallel.
    concurrency: 2 * GROUP,
    sampler,
    seed: 5,
    taskCount: TASKS,
    // The client's own statistics, fresh for each run, so the two runs
    // compare samplers and not what the server kept from the other.
    taskStats: new TaskStats()
  });
  if (summary.errors > 0)
    throw new Error(
      `14 curriculum: ${summary.errors} episodes failed: ${JSON.stringify(summary.error_codes)}`
    );
  return summary.signal_share ?? null;
};

export const curriculumScenario = async (api: Api): Promise<Row[]> => {
  const uniform = await signalShare(api, "uniform");
  const curriculum = await signalShare(api, "curriculum");
  const ratio =
    uniform !== null && curriculum !== null && uniform > 0
      ? `${(curriculum / uniform).toFixed(2)}×`
      : "—";
  return [
    {
      scenario: "14 Curriculum",
      measure: `groups with signal (returns not all equal), calculator, ${GROUPS} groups of ${GROUP} over ${TASKS} tasks (4 always solved, 4 never, 4 half the time): curriculum ÷ uniform sampling`,
      roost: share(curriculum),
      reference: share(uniform),
      ratio,
      target: "> uniform",
      met: uniform !== null && curriculum !== null ? curriculum > uniform : null
    }
  ];
};
