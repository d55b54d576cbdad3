/**
 * @module Scenario 12's rows for the step phase, where issue 60's targets
 * are: at 1 024 sockets, OpenEnv's ratios to the bare DO with its socket
 * in the object, both measured in this run. Roost's session socket stands
 * beside each ratio, without a verdict.
 */

import { ms, type Row, times } from "./lib/table";
import { type PhaseFigures, p50p99, success } from "./openenv-figures";
import {
  beside,
  type Contender,
  SCENARIO,
  TARGET_AT,
  type WaveContext
} from "./openenv-rows";

/** Issue 60: steps/s at least this many times the bare DO's. */
const STEPS_TARGET = 0.8;
/** Issue 60: step p50 at most this many times the bare DO's. */
const STEP_P50_TARGET = 1.3;
/** Issue 60: workerd CPU per step at most this many times the bare DO's. */
const CPU_TARGET = 1.5;
/** Issue 60: connect p50 at most this many times the bare DO's. */
const CONNECT_TARGET = 1.5;

const OBJECT = "bare DO, socket in the object";
const WORKER = "in the worker";

/** The target's cell and verdict: only at the size the issue names. */
const verdict = (
  targeted: boolean,
  text: string,
  met: boolean
): Pick<Row, "target" | "met"> =>
  targeted ? { target: `${text} (issue 60)`, met } : { target: "—", met: null };

export const phaseRows = (
  { sessions, steps, rounds }: WaveContext,
  f: Record<Contender, PhaseFigures>
): Row[] => {
  const each = `${sessions.toLocaleString("en")} sockets, step phase (all connected and reset first, then ${steps} steps each timed alone)`;
  const targeted = sessions === TARGET_AT;
  const ratio = (x: (c: PhaseFigures) => number) =>
    [x(f.openenv) / x(f.object), x(f.session) / x(f.object)] as const;
  const [rate, sessionRate] = ratio((c) => c.rate);
  const [p50, sessionP50] = ratio((c) => c.step.p50);
  const [cpu, sessionCpu] = ratio((c) => c.cpuPerStep);
  const [connect, sessionConnect] = ratio((c) => c.connect);
  const byWorker = (c: PhaseFigures) => times(c.connect / f.worker.connect);
  return [
    {
      scenario: SCENARIO,
      measure: `${each}: sessions that got through every step (OpenEnv's socket; beside it Roost's session socket)`,
      roost: `OpenEnv: ${success(f.openenv)}; session socket: ${success(f.session)}`,
      reference: `${OBJECT}: ${success(f.object)}; ${WORKER}: ${success(f.worker)}`,
      ratio: "—",
      // Every size must finish, as the whole-session waves must.
      target: targeted ? "100 % (issue 60)" : "100 %",
      met: f.openenv.ok === f.openenv.total
    },
    {
      scenario: SCENARIO,
      measure: `${each}: steps/s, median of ${rounds} waves; ratio ÷ the bare DO with its socket in the object, in this run`,
      roost: `OpenEnv: ${f.openenv.rate.toFixed(0)} steps/s; session socket: ${f.session.rate.toFixed(0)}/s`,
      reference: `${OBJECT}: ${f.object.rate.toFixed(0)}/s; ${WORKER}: ${f.worker.rate.toFixed(0)}/s`,
      ratio: beside(rate, sessionRate),
      ...verdict(targeted, `≥ ${STEPS_TARGET}×`, rate >= STEPS_TARGET)
    },
    {
      scenario: SCENARIO,
      measure: `${each}: step p50 / p99; ratio of the p50s ÷ the bare DO with its socket in the object`,
      roost: `OpenEnv: ${p50p99(f.openenv.step)}; session socket: ${p50p99(f.session.step)}`,
      reference: `${OBJECT}: ${p50p99(f.object.step)}; ${WORKER}: ${p50p99(f.worker.step)}`,
      ratio: beside(p50, sessionP50),
      ...verdict(targeted, `≤ ${STEP_P50_TARGET}×`, p50 <= STEP_P50_TARGET)
    },
    {
      scenario: SCENARIO,
      measure: `${each}: workerd CPU per step (all its processes, over the step phase, median of the waves); ratio ÷ the bare DO with its socket in the object`,
      roost: `OpenEnv: ${ms(f.openenv.cpuPerStep)}; session socket: ${ms(f.session.cpuPerStep)}`,
      reference: `${OBJECT}: ${ms(f.object.cpuPerStep)}; ${WORKER}: ${ms(f.worker.cpuPerStep)}`,
      ratio: beside(cpu, sessionCpu),
      ...verdict(targeted, `≤ ${CPU_TARGET}×`, cpu <= CPU_TARGET)
    },
    {
      scenario: SCENARIO,
      measure: `${each}: connect p50 with every socket opening at once (the session socket's: its HTTP create, whose p50 is given apart, then the socket's open); ratio ÷ the bare DO with its socket in the object, and in brackets ÷ the one reached through the worker`,
      roost: `OpenEnv: ${ms(f.openenv.connect)}; session socket: ${ms(f.session.connect)} (create ${ms(f.session.create)})`,
      reference: `${OBJECT}: ${ms(f.object.connect)}; ${WORKER}: ${ms(f.worker.connect)}`,
      ratio: `${times(connect)} (${byWorker(f.openenv)}); session socket ${times(sessionConnect)} (${byWorker(f.session)})`,
      ...verdict(
        targeted,
        `≤ ${CONNECT_TARGET}× the object's`,
        connect <= CONNECT_TARGET
      )
    }
  ];
};
