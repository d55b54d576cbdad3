/** @module `roost-edge rescore`: a trajectories file re-scored with the rubrics of a module, nothing run again. */

import { readFile, writeFile } from "node:fs/promises";
import {
  type EpisodeRubricLike,
  type Rescoring,
  rescoreTrajectories,
  type StepRubricLike,
  type TrajectoryLine
} from "../client/rescore";
import { type RescoreCommand, UsageError } from "./args";
import { importModule } from "./import-module";

const kindOf = (value: unknown): unknown =>
  typeof value === "object" && value !== null
    ? (value as { kind?: unknown }).kind
    : undefined;

/**
 * The module's `rubric` (a step rubric) and `episodeRubric`; a default
 * export of either kind counts as that one. Told apart by their `kind`,
 * as `defineRubric` and `defineEpisodeRubric` mark them.
 */
export const loadRubrics = async (spec: string): Promise<Rescoring> => {
  const loaded = await importModule(
    spec,
    `--rubric "${spec}" is not a module that loads`
  );
  const found = [loaded.rubric, loaded.episodeRubric, loaded.default];
  const rubric = found.find((v) => kindOf(v) === "rubric") as
    | StepRubricLike
    | undefined;
  const episodeRubric = found.find((v) => kindOf(v) === "episode-rubric") as
    | EpisodeRubricLike
    | undefined;
  if (rubric === undefined && episodeRubric === undefined)
    throw new UsageError(
      `${spec} exports no rubric: export a step rubric (defineRubric) as "rubric" and/or an episode rubric (defineEpisodeRubric) as "episodeRubric".`
    );
  return {
    ...(rubric ? { rubric } : {}),
    ...(episodeRubric ? { episodeRubric } : {})
  };
};

/** The file's lines as trajectories; a line that is not one names its number. */
const readLines = async (path: string): Promise<TrajectoryLine[]> => {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `--in "${path}" cannot be read: ${error instanceof Error ? error.message : String(error)}`
    );
  }
  return text
    .split("\n")
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== "")
    .map(([line, number]) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new UsageError(`${path}:${number} is not JSON.`);
      }
      const t = parsed as Partial<TrajectoryLine>;
      if (
        !Array.isArray(t.rewards) ||
        !Array.isArray(t.actions) ||
        !Array.isArray(t.observations)
      )
        throw new UsageError(
          `${path}:${number} is not a trajectory: it needs rewards, actions and observations, as roost-edge rollout writes them.`
        );
      return {
        ...t,
        group_id: t.group_id ?? null,
        error: t.error ?? null,
        task: t.task ?? null
      } as TrajectoryLine;
    });
};

const figure = (value: number | null) =>
  value === null ? "-" : value.toFixed(3);

/** Runs the command; the summary goes to `log` (stderr), the lines to the file or stdout. */
export const runRescore = async (
  command: RescoreCommand,
  io: { stdout: (text: string) => void; log: (text: string) => void }
): Promise<number> => {
  let rescoring: Rescoring;
  let lines: TrajectoryLine[];
  try {
    rescoring = await loadRubrics(command.rubric);
    lines = await readLines(command.in);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.log(`${error.message}\n`);
    return 2;
  }
  const result = await rescoreTrajectories(lines, rescoring);
  const text = result.trajectories
    .map((t) => `${JSON.stringify(t)}\n`)
    .join("");
  if (command.out === "-") io.stdout(text);
  else await writeFile(command.out, text);
  const failed = lines.filter((t) => t.error !== null).length;
  const groups = new Set(lines.map((t) => t.group_id).filter((g) => g !== null))
    .size;
  io.log(
    [
      `Re-scored ${lines.length} episodes${failed > 0 ? ` (${failed} with an error, left out of the means)` : ""}.`,
      `  mean return   ${figure(result.mean_before)} before, ${figure(result.mean_after)} after`,
      ...(result.flat_groups === null
        ? []
        : [
            `  groups        ${groups}, advantages recomputed; ${result.flat_groups} with no spread`
          ]),
      `  trajectories  ${command.out === "-" ? "stdout" : command.out}`,
      ""
    ].join("\n")
  );
  return 0;
};
