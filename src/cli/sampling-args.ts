/** @module The rollout's task-sampling options: which index each episode or group plays. */

import { SAMPLERS, type SamplerKind } from "../client/task-sampler";
import type { RolloutCommand } from "./args";
import { UsageError } from "./usage-error";

export const SAMPLING_OPTIONS = `  --sampler <how>       how each episode (with groups, each group) picks its
                        dataset index: sequential (the default: i, as above),
                        uniform (at random, seeded by --seed), or curriculum
                        (favours tasks whose groups are likely to disagree:
                        weight 1 - p^G - (1-p)^G for pass rate p so far and
                        group size G, untried tasks first)
  --task-count <n>      sample from indexes 0..n-1 only (default: the whole
                        dataset; a generated split: seeds 0..999)
  --task-stats <file>   the curriculum's successes and attempts per task, as
                        JSON: read at the start if the file exists, written
                        at the end, so a restarted run continues. Without
                        it the curriculum draws from the server's statistics
                        (POST /v1/environments/<env>/task-stats/sample),
                        shared by every runner, successes counted at the
                        environment's own success threshold
  --success-threshold <r>  a return of at least r counts as a success in the
                        run's own statistics and its file (default 1)`;

/** The sampling flags, checked against each other; `--task-count` comes parsed. */
export const samplingOf = (
  flags: ReadonlyMap<string, string>,
  taskIndex: number | undefined,
  taskCount: number | undefined
): Pick<
  RolloutCommand,
  "sampler" | "taskCount" | "taskStats" | "successThreshold"
> => {
  const sampler = flags.get("sampler");
  if (sampler !== undefined && !SAMPLERS.includes(sampler as SamplerKind))
    throw new UsageError(
      `--sampler must be one of ${SAMPLERS.join(", ")}, not "${sampler}".`
    );
  if (
    taskIndex !== undefined &&
    (flags.has("sampler") || flags.has("task-count"))
  )
    throw new UsageError(
      "--task-index plays one task: it cannot be combined with --sampler or --task-count."
    );
  const taskStats = flags.get("task-stats");
  if (taskStats !== undefined && sampler !== "curriculum")
    throw new UsageError("--task-stats needs --sampler curriculum.");
  const threshold = flags.get("success-threshold");
  if (threshold !== undefined && !Number.isFinite(Number(threshold)))
    throw new UsageError(
      `--success-threshold must be a number, not "${threshold}".`
    );
  return {
    ...(sampler === undefined ? {} : { sampler: sampler as SamplerKind }),
    ...(taskCount === undefined ? {} : { taskCount }),
    ...(taskStats === undefined ? {} : { taskStats }),
    ...(threshold === undefined ? {} : { successThreshold: Number(threshold) })
  };
};
