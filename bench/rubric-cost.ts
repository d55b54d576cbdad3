/**
 * @module Scenario 13 (`npm run bench -- rubric`): what a step costs when
 * its reward is a three-component rubric rather than one `evaluate`
 * function computing the same sum (bench/worker/rubric-environments.ts).
 * Time is interleaved step by step on the same server; rows and CPU come
 * from the metered server the bill runs on.
 */

import { billOf, readBill, run, storedBytes } from "./bill-measure";
import type { Api, BenchSession } from "./lib/api";
import { interleave, median, progress, timed } from "./lib/stats";
import { bytes, ms, type Row, times } from "./lib/table";

const SESSIONS = 4;
const STEPS = 100;
const TARGET = 1.1;

/** Alternates a right and a wrong answer, so every component moves. */
const value = (i: number) => (i % 2 === 0 ? 42 : 41.5);

export const rubricScenario = async (
  api: Api,
  pgid: number
): Promise<Row[]> => {
  const scenario = "13 Rubric step";
  const open = async (environment: string) => {
    const sessions: BenchSession[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const s = await api.create(environment, { answer: 42 });
      await api.reset(s);
      // The episode's first answer adds the hidden key's row: priced apart.
      await api.step(s, "answer", { value: 0 });
      sessions.push(s);
    }
    return sessions;
  };
  progress("13 rubric: setting up");
  const evaluate = await open("bench-evaluate");
  const rubric = await open("bench-rubric");
  const rescorable = await open("bench-rescorable");
  const sizeBefore = {
    evaluate: await storedBytes(api, evaluate),
    rubric: await storedBytes(api, rubric)
  };

  let n = 0;
  const taken = { evaluate: 0, rubric: 0 };
  const samples = await interleave(
    {
      evaluate: () =>
        timed(() => {
          taken.evaluate++;
          return api.step(evaluate[n % SESSIONS]!, "answer", {
            value: value(n++)
          });
        }),
      rubric: () =>
        timed(() => {
          taken.rubric++;
          return api.step(rubric[n % SESSIONS]!, "answer", {
            value: value(n++)
          });
        })
    },
    { rounds: 50, warmup: 2, block: 4, label: "13 rubric" }
  );
  const wall = {
    evaluate: median(samples("evaluate")),
    rubric: median(samples("rubric"))
  };

  // Rows and CPU over a run of each alone, the bills read fresh before it.
  const billed = async (sessions: BenchSession[]) => {
    for (const s of sessions) await readBill(api, s);
    const timing = await run(pgid, STEPS, (i) =>
      api.step(sessions[i % SESSIONS]!, "answer", { value: value(i) })
    );
    return { ...timing, ...(await billOf(api, sessions, STEPS)) };
  };
  progress("13 rubric: metering plain evaluate");
  const e = await billed(evaluate);
  progress("13 rubric: metering the rubric");
  const r = await billed(rubric);
  progress("13 rubric: metering the rubric registered for re-scoring");
  const k = await billed(rescorable);
  const stepsTaken = (samples("evaluate").length * 4) / 3 / SESSIONS + STEPS;
  const grew = {
    evaluate:
      ((await storedBytes(api, evaluate)) - sizeBefore.evaluate) / stepsTaken,
    rubric: ((await storedBytes(api, rubric)) - sizeBefore.rubric) / stepsTaken
  };

  const ratio = wall.rubric / wall.evaluate;
  return [
    {
      scenario,
      measure: "HTTP step, median wall time (interleaved)",
      roost: ms(wall.rubric),
      reference: `plain evaluate ${ms(wall.evaluate)}`,
      ratio: times(ratio),
      target: `≤ ${TARGET}×`,
      met: ratio <= TARGET
    },
    {
      scenario,
      measure: "rows written / read per step",
      roost: `${r.rowsWritten.toFixed(2)} / ${r.rowsRead.toFixed(2)}`,
      reference: `${e.rowsWritten.toFixed(2)} / ${e.rowsRead.toFixed(2)}`,
      ratio: times(r.rowsWritten / e.rowsWritten),
      target: "1.00× written",
      met: r.rowsWritten <= e.rowsWritten
    },
    {
      scenario,
      measure:
        "rows written / read per step, the same rubric registered for re-scoring (`rubrics`: each step recorded beside the log)",
      roost: `${k.rowsWritten.toFixed(2)} / ${k.rowsRead.toFixed(2)}`,
      reference: `${e.rowsWritten.toFixed(2)} / ${e.rowsRead.toFixed(2)}`,
      ratio: times(k.rowsWritten / e.rowsWritten),
      target: "",
      met: null
    },
    {
      scenario,
      measure: "workerd CPU per step (whole process)",
      roost: ms(r.cpuMs),
      reference: ms(e.cpuMs),
      ratio: times(r.cpuMs / e.cpuMs),
      target: "",
      met: null
    },
    {
      scenario,
      measure: "stored bytes per step (the step event's components)",
      roost: bytes(grew.rubric),
      reference: bytes(grew.evaluate),
      ratio: times(grew.rubric / grew.evaluate),
      target: "",
      met: null
    }
  ];
};
