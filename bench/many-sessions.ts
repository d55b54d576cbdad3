/**
 * @module Scenario 4: many sessions, each reset plus ten steps, fifty at a
 * time — throughput against the bare Durable Object doing the same number
 * of round trips on as many objects; and before that, how fast sessions
 * are created, against bare DOs answering their first request.
 */

import type { Api, BenchSession } from "./lib/api";
import { pool } from "./lib/pool";
import { interleave, median, progress, timed } from "./lib/stats";
import { type Row, times } from "./lib/table";

const STEPS = 10;
const CONCURRENCY = 50;
const TARGET = 0.9;
const NEW_TARGET = 0.8;

export const manySessions = async (
  api: Api,
  options: { sessions: number; chunk: number }
): Promise<Row[]> => {
  const { sessions: total, chunk } = options;
  const rounds = Math.floor(total / chunk);
  const created: BenchSession[] = [];
  progress(
    `4 many sessions: creating ${total + chunk} sessions and as many bare DOs`
  );
  // One extra chunk for the warm-up round. Creation is timed on its own,
  // chunk by chunk, alternately: a session's first request creates it, as
  // a bare DO's first request creates its table. Both kinds of object
  // exist before the steps' clock starts, so neither pays for its creation there.
  let madeBase = 0;
  const creations = await interleave(
    {
      baseline: () => {
        const first = madeBase;
        madeBase += chunk;
        return timed(() =>
          pool(
            Array.from({ length: chunk }, (_, i) => first + i),
            CONCURRENCY,
            async (i) => {
              await api.baseline(`many-${i}`, { created: true });
            }
          )
        );
      },
      roost: () =>
        timed(() =>
          pool(
            Array.from({ length: chunk }, (_, i) => i),
            CONCURRENCY,
            async () => {
              created.push(await api.create());
            }
          )
        )
    },
    { rounds, warmup: 1, label: "4 new sessions" }
  );
  const createdPerSecond = (elapsed: number[]) =>
    median(elapsed.map((msTaken) => (chunk * 1000) / msTaken));
  const newRoost = createdPerSecond(creations("roost"));
  const newBase = createdPerSecond(creations("baseline"));
  let round = 0;
  let baseRound = 0;
  const roostChunk = () => {
    const mine = created.slice(round * chunk, (round + 1) * chunk);
    round++;
    return timed(() =>
      pool(mine, CONCURRENCY, async (s) => {
        await api.reset(s);
        for (let i = 0; i < STEPS; i++) await api.step(s, "noop");
      })
    );
  };
  const baselineChunk = () => {
    const names = Array.from(
      { length: chunk },
      (_, i) => `many-${baseRound * chunk + i}`
    );
    baseRound++;
    return timed(() =>
      pool(names, CONCURRENCY, async (name) => {
        // The same round trips as reset + ten steps.
        for (let i = 0; i <= STEPS; i++) await api.baseline(name, { i });
      })
    );
  };
  const samples = await interleave(
    { baseline: baselineChunk, roost: roostChunk },
    { rounds, warmup: 1, label: "4 many sessions" }
  );
  const perSecond = (elapsed: number[]) =>
    median(elapsed.map((msTaken) => (chunk * STEPS * 1000) / msTaken));
  const roost = perSecond(samples("roost"));
  const base = perSecond(samples("baseline"));
  const ratio = roost / base;
  const scaled =
    total < 1000 ? ` (scaled down from 1 000 to fit the time budget)` : "";
  const newRatio = newRoost / newBase;
  return [
    {
      scenario: "4 Many sessions",
      measure: `new sessions/s, ${CONCURRENCY} at a time (a session's first request creates it; a bare DO's creates its table), median of ${rounds} rounds of ${chunk}`,
      roost: `${newRoost.toFixed(0)} sessions/s`,
      reference: `bare DO, first requests: ${newBase.toFixed(0)}/s`,
      ratio: times(newRatio),
      target: `≥ ${NEW_TARGET}×`,
      met: newRatio >= NEW_TARGET
    },
    {
      scenario: "4 Many sessions",
      measure: `${total.toLocaleString("en")} sessions${scaled}, each reset + ${STEPS} steps, ${CONCURRENCY} at a time; steps/s, median of ${rounds} rounds of ${chunk}`,
      roost: `${roost.toFixed(0)} steps/s`,
      reference: `bare DO, same round trips: ${base.toFixed(0)}/s`,
      ratio: times(ratio),
      target: `≥ ${TARGET}×`,
      met: ratio >= TARGET
    }
  ];
};
