/**
 * @module Scenario 6: a decision-tree run of four passes (three store an
 * object, one answers) against the same work done as four HTTP steps. The
 * run pays for starting (202), the alarm that drives it, a commit per pass
 * and the wait for its end.
 */

import type { Api } from "./lib/api";
import { interleave, median, progress, timed } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const TARGET = 1.5;

export const treeRun = async (api: Api, rounds = 15): Promise<Row[]> => {
  progress("6 tree run: setting up");
  const session = await api.create();
  await api.reset(session);
  const run = async () => {
    const { run_id } = (await api.post(
      `/v1/sessions/${session.id}/runs`,
      { prompt: "store three objects" },
      session.token
    )) as { run_id: string };
    const done = (await api.json(
      "GET",
      `/v1/sessions/${session.id}/runs/${run_id}?wait=30`,
      undefined,
      session.token
    )) as { state: string; passes: number };
    if (done.state !== "completed" || done.passes !== 4) {
      throw new Error(`run ended ${done.state} after ${done.passes} passes`);
    }
  };
  const steps = async () => {
    for (const n of [1, 2, 3]) await api.step(session, "put", { n });
    await api.step(session, "noop");
  };
  const samples = await interleave(
    { steps: () => timed(steps), run: () => timed(run) },
    { rounds, warmup: 2, label: "6 tree run" }
  );
  const roost = median(samples("run"));
  const base = median(samples("steps"));
  const ratio = roost / base;
  return [
    {
      scenario: "6 Tree run",
      measure: `a 4-pass scripted run (start + wait), median of ${rounds}`,
      roost: ms(roost),
      reference: `the same tools as 4 HTTP steps: ${ms(base)}`,
      ratio: times(ratio),
      target: `≤ ${TARGET}×`,
      met: ratio <= TARGET
    }
  ];
};
