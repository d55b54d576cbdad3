/** @module Oracle and floor: the reference policy reaches the most an episode returns, policies that know nothing stay measurably below it. */

import type { Environment } from "../environment/define-environment";
import type { OraclePolicy } from "../environment/validation";
import { createLocalSession } from "../runner/local-session";
import { type Played, playTogether, type TaskRef, taskName } from "./episode";
import { doNothing, emptyAnswers, scripted } from "./policies";
import { type CheckRow, row } from "./report";

/** How far below the oracle's mean a floor must stay, as a share of the maximum return. */
export const MARGIN = 0.1;

const mean = (xs: number[]) =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

/** Plays the policy the factory makes for each task (it may read the task, as an oracle does). */
const playAll = async (
  env: Environment,
  tasks: TaskRef[],
  policyFor: (task: unknown) => OraclePolicy,
  maxSteps: number
): Promise<Played[]> => {
  const runs: Played[] = [];
  for (const task of tasks) {
    const session = createLocalSession(env);
    // The oracle is handed the task reset resolves, so reset comes first.
    let policy: OraclePolicy | undefined;
    const lazy: OraclePolicy = (o, t, h) => {
      policy ??= policyFor(session.task);
      return policy(o, t, h);
    };
    runs.push(...(await playTogether([session], task, lazy, maxSteps)));
  }
  return runs;
};

export const oracleAndFloor = async (
  env: Environment,
  tasks: TaskRef[],
  maxSteps: number
): Promise<{ rows: CheckRow[]; runs: Played[] }> => {
  const config = env.validation ?? {};
  const top = config.maxReturn ?? 1;
  if (config.oracle === undefined) {
    const reason = config.noOracle;
    return {
      rows: [
        reason === undefined
          ? row(
              "oracle",
              "no oracle: give the environment validation.oracle, or validation.noOracle with the reason it cannot have one",
              ""
            )
          : { check: "oracle", status: "SKIP", detail: `no oracle: ${reason}` }
      ],
      runs: []
    };
  }
  const oracle = config.oracle.bind(config);
  const oracleRuns = await playAll(env, tasks, oracle, maxSteps);
  const short = oracleRuns.findIndex((p) => p.return < top - 1e-9);
  const oracleMean = mean(oracleRuns.map((p) => p.return));
  const rows: CheckRow[] = [
    row(
      "oracle",
      short === -1
        ? undefined
        : `returned ${oracleRuns[short]!.return} on ${taskName(tasks[short]!)}, not the maximum ${top}`,
      `reached ${top} on ${tasks.length} task${tasks.length === 1 ? "" : "s"}`,
      oracleMean
    )
  ];
  const floors: [string, () => OraclePolicy][] = [
    ["floor: do nothing", () => doNothing],
    ["floor: empty answers", () => emptyAnswers],
    ["floor: random", () => scripted(4)]
  ];
  const runs = [...oracleRuns];
  for (const [check, make] of floors) {
    const played = await playAll(env, tasks, make, maxSteps);
    runs.push(...played);
    const value = mean(played.map((p) => p.return));
    rows.push(
      row(
        check,
        value > oracleMean - MARGIN * top
          ? `mean return ${value.toFixed(3)} is not measurably below the oracle's ${oracleMean.toFixed(3)}: the reward pays for knowing nothing`
          : undefined,
        `mean return below the oracle's by ${(oracleMean - value).toFixed(3)}`,
        value
      )
    );
  }
  return { rows, runs };
};
