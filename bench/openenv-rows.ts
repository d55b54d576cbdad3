/**
 * @module Scenario 12's rows for the whole-session waves: every session
 * connects, resets, steps and closes on its own, all started at once.
 * Roost's figure is OpenEnv's socket; its own session socket stands beside
 * it, without a verdict, to show how much of the gap is OpenEnv's channel.
 */

import { ms, type Row, times } from "./lib/table";
import { type Figures, p50p99, success } from "./openenv-figures";

/** The scenario's contenders: Roost's two sockets, and the bare DO with its socket in the worker or in the object. */
export type Contender = "openenv" | "session" | "worker" | "object";

export interface WaveContext {
  sessions: number;
  steps: number;
  rounds: number;
}

export const SCENARIO = "12 OpenEnv sockets";
/** The size the issues' targets are about. */
export const TARGET_AT = 1024;
/** The whole wave's steps/s, at least this many times the bare DO's with its socket in the worker. */
const STEPS_TARGET = 0.8;
/** The whole wave's connect p50, at most this many times the same bare DO's. */
const CONNECT_TARGET = 1.5;

export const WORKER = "bare DO, socket in the worker";
export const OBJECT = "in the object";

/** The session socket's ratio, beside OpenEnv's verdict-bearing one. */
export const beside = (openenv: number, session: number): string =>
  `${times(openenv)} (session socket ${times(session)})`;

export const rows = (
  { sessions, steps, rounds }: WaveContext,
  f: Record<Contender, Figures>
): Row[] => {
  const each = `${sessions.toLocaleString("en")} sockets at once`;
  const targeted = sessions === TARGET_AT;
  const stepRatio = f.openenv.rate / f.worker.rate;
  const connectRatio = f.openenv.connect.p50 / f.worker.connect.p50;
  const phases = (x: Figures) =>
    `${p50p99(x.reset)}; ${p50p99(x.step)}; ${p50p99(x.close)}`;
  return [
    {
      scenario: SCENARIO,
      measure: `${each}, each connect + reset + ${steps} steps + close (counter's \`incr\`): sessions that finished — Roost's OpenEnv socket (OpenEnv's frames); beside it Roost's session socket (the session made over HTTP first, deleted by a \`destroy\` frame at close)`,
      roost: `OpenEnv: ${success(f.openenv)}; session socket: ${success(f.session)}`,
      reference: `${WORKER}: ${success(f.worker)}; ${OBJECT}: ${success(f.object)}`,
      ratio: "—",
      target: targeted ? "100 % (issue 60)" : "100 %",
      met: f.openenv.ok === f.openenv.total
    },
    {
      scenario: SCENARIO,
      measure: `${each}: answered steps ÷ the wave's wall time, median of ${rounds} waves; ratio ÷ the bare DO with its socket in the worker`,
      roost: `OpenEnv: ${f.openenv.rate.toFixed(0)} steps/s; session socket: ${f.session.rate.toFixed(0)}/s`,
      reference: `${WORKER}: ${f.worker.rate.toFixed(0)}/s; ${OBJECT}: ${f.object.rate.toFixed(0)}/s`,
      ratio: beside(stepRatio, f.session.rate / f.worker.rate),
      target: targeted ? `≥ ${STEPS_TARGET}×` : "—",
      met: targeted ? stepRatio >= STEPS_TARGET : null
    },
    {
      scenario: SCENARIO,
      measure: `${each}: connect p50 / p99 (OpenEnv's socket makes its session as it opens; the session socket's connect is its HTTP create, then the socket's open, the create's p50 given apart); ratio of the p50s ÷ the bare DO with its socket in the worker`,
      roost: `OpenEnv: ${p50p99(f.openenv.connect)}; session socket: ${p50p99(f.session.connect)} (create p50 ${ms(f.session.create.p50)})`,
      reference: `${WORKER}: ${p50p99(f.worker.connect)}; ${OBJECT}: ${p50p99(f.object.connect)}`,
      ratio: beside(connectRatio, f.session.connect.p50 / f.worker.connect.p50),
      target: targeted ? `≤ ${CONNECT_TARGET}×` : "—",
      met: targeted ? connectRatio <= CONNECT_TARGET : null
    },
    {
      scenario: SCENARIO,
      measure: `${each}: reset p50 / p99; step p50 / p99; close (the close or \`destroy\` frame until the socket closed) p50 / p99 (ratio: the step p50s ÷ the bare DO with its socket in the worker)`,
      roost: `OpenEnv: ${phases(f.openenv)}; session socket: ${phases(f.session)}`,
      reference: `${WORKER}: ${phases(f.worker)}; ${OBJECT}: ${phases(f.object)}`,
      ratio: beside(
        f.openenv.step.p50 / f.worker.step.p50,
        f.session.step.p50 / f.worker.step.p50
      ),
      target: "—",
      met: null
    },
    {
      scenario: SCENARIO,
      measure: `${each}: workerd CPU per session (all its processes, from /proc; median of the waves; the session socket's HTTP create included); ratio ÷ the bare DO with its socket in the worker`,
      roost: `OpenEnv: ${ms(f.openenv.cpu)}; session socket: ${ms(f.session.cpu)}`,
      reference: `${WORKER}: ${ms(f.worker.cpu)}; ${OBJECT}: ${ms(f.object.cpu)}`,
      ratio: beside(f.openenv.cpu / f.worker.cpu, f.session.cpu / f.worker.cpu),
      target: "—",
      met: null
    },
    {
      scenario: SCENARIO,
      measure: `${each}: where the bare DO's socket lives — in the object ÷ in the worker, steps/s (connect p50; CPU per session)`,
      roost: "—",
      reference: `${f.object.rate.toFixed(0)} ÷ ${f.worker.rate.toFixed(0)} steps/s (${ms(f.object.connect.p50)} ÷ ${ms(f.worker.connect.p50)}; ${ms(f.object.cpu)} ÷ ${ms(f.worker.cpu)})`,
      ratio: `${times(f.object.rate / f.worker.rate)} (${times(f.object.connect.p50 / f.worker.connect.p50)}; ${times(f.object.cpu / f.worker.cpu)})`,
      target: "—",
      met: null
    }
  ];
};
