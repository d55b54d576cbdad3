/**
 * @module Scenario 6: a decision-tree run of four passes (three store an
 * object, one answers) against the same work done as four HTTP steps. The
 * run pays for starting (202), the alarm that drives it, a commit per pass
 * and the wait for its end. Then the same run on a session whose transcript
 * holds 10 000 messages against one that holds 10: a pass reads the
 * conversation history it keeps, never the whole transcript.
 */

import type { Api, BenchSession } from "./lib/api";
import { interleave, median, progress, timed } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const TARGET = 1.5;
/** Issue 23: a run's cost must not grow with the transcript. */
const TRANSCRIPT_TARGET = 1.2;
const LONG_TRANSCRIPT = 10_000;

const runOn = (api: Api, session: BenchSession) => async () => {
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

/** Calls one step may make (the default `toolCallsPerAction` limit). */
const CALLS_PER_STEP = 64;

/**
 * Grows the transcript to about `count` messages by
 * steps. Each makes 64 no-op calls, so it adds 65 messages (the call and
 * the tool messages).
 */
const growTranscript = async (
  api: Api,
  session: BenchSession,
  count: number
): Promise<void> => {
  const calls = Array.from({ length: CALLS_PER_STEP }, (_, i) => ({
    id: `c${i}`,
    type: "function",
    function: { name: "noop", arguments: "{}" }
  }));
  for (let added = 0; added < count; added += CALLS_PER_STEP + 1) {
    await api.post(
      `/v1/sessions/${session.id}/step`,
      { action: { tool_calls: calls } },
      session.token
    );
  }
};

export const treeRun = async (api: Api, rounds = 15): Promise<Row[]> => {
  progress("6 tree run: setting up");
  const session = await api.create();
  await api.reset(session);
  const run = runOn(api, session);
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

  progress(`6 tree run: a session with ${LONG_TRANSCRIPT} transcript messages`);
  const short = await api.create();
  await api.reset(short);
  const long = await api.create();
  await api.reset(long);
  await growTranscript(api, long, LONG_TRANSCRIPT);
  const byLength = await interleave(
    {
      short: () => timed(runOn(api, short)),
      long: () => timed(runOn(api, long))
    },
    { rounds, warmup: 2, label: "6 tree run (transcript)" }
  );
  const shortMs = median(byLength("short"));
  const longMs = median(byLength("long"));
  const growth = longMs / shortMs;
  return [
    {
      scenario: "6 Tree run",
      measure: `a 4-pass scripted run (start + wait), median of ${rounds}`,
      roost: ms(roost),
      reference: `the same tools as 4 HTTP steps: ${ms(base)}`,
      ratio: times(ratio),
      target: `≤ ${TARGET}×`,
      met: ratio <= TARGET
    },
    {
      scenario: "6 Tree run",
      measure: `the same run on a session whose transcript holds ${LONG_TRANSCRIPT.toLocaleString("en-US")} messages, median of ${rounds}`,
      roost: ms(longMs),
      reference: `transcript of about 10 messages: ${ms(shortMs)}`,
      ratio: times(growth),
      target: `≤ ${TRANSCRIPT_TARGET}×`,
      met: growth <= TRANSCRIPT_TARGET
    }
  ];
};
