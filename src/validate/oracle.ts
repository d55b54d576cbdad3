/** @module Oracle and floor: the reference policy reaches the most an episode returns, policies that know nothing stay measurably below it. */

import type { OraclePolicy } from "../environment/validation";
import { type Played, play, type TaskChoice, taskName } from "./episode";
import { doNothing, emptyAnswers, scripted } from "./policies";
import { type CheckRow, row } from "./report";
import type { Target } from "./target";

/** How far below the oracle's mean a floor must stay, as a share of the maximum return. */
export const MARGIN = 0.1;

const mean = (xs: number[]) =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

/** Plays the policy the factory makes for each task (it may read the task, as an oracle does), each on a new session. */
const playAll = async (
  target: Target,
  tasks: TaskChoice[],
  policyFor: (task: unknown) => OraclePolicy,
  maxSteps: number
): Promise<Played[]> => {
  const runs: Played[] = [];
  for (const task of tasks)
    runs.push(await play(target, task, policyFor, maxSteps));
  return runs;
};

export const oracleAndFloor = async (
  target: Target,
  tasks: TaskChoice[],
  maxSteps: number
): Promise<{ rows: CheckRow[]; runs: Played[] }> => {
  const config = target.oracle;
  const top = config.maxReturn;
  if (config.oracle === undefined) {
    const reason = config.noOracle;
    return {
      rows: [
        config.oracleElsewhere
          ? row(
              "oracle",
              "the oracle is defined in the environment's module: pass the module (validate --url <server> <module>) to run it",
              ""
            )
          : reason === undefined
            ? row(
                "oracle",
                "no oracle: give the environment validation.oracle, or validation.noOracle with the reason it cannot have one",
                ""
              )
            : {
                check: "oracle",
                status: "SKIP",
                detail: `no oracle: ${reason}`
              }
      ],
      runs: []
    };
  }
  const oracleRuns = await playAll(target, tasks, config.oracle, maxSteps);
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
    const played = await playAll(target, tasks, make, maxSteps);
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
