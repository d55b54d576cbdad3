/** @module The rollout's modes beside plain episodes: a group judge (--group-judge) and tree rollouts (--branches). */

import type { RolloutCommand } from "./args";
import { optionalInt } from "./int-flag";
import { UsageError } from "./usage-error";

export const branchesOf = (
  flags: Map<string, string>
): Pick<RolloutCommand, "branches"> => {
  const continuations = optionalInt(flags, "branches", 1);
  const every = optionalInt(flags, "branch-every", 1);
  if (continuations === undefined) {
    if (every !== undefined)
      throw new UsageError("--branch-every needs --branches.");
    return {};
  }
  return { branches: { continuations, every: every ?? 1 } };
};

export const judgeOf = (
  flags: Map<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  groupSize: number | undefined
): Pick<RolloutCommand, "judge"> => {
  const named = ["judge-model", "judge-base-url", "judge-rubric"].find((f) =>
    flags.has(f)
  );
  if (!flags.has("group-judge")) {
    if (named !== undefined)
      throw new UsageError(`--${named} needs --group-judge.`);
    return {};
  }
  if (groupSize === undefined || groupSize < 2)
    throw new UsageError(
      "--group-judge ranks a group's episodes: it needs --group-size of 2 or more."
    );
  const model = flags.get("judge-model") ?? env.ROOST_JUDGE_MODEL;
  if (!model)
    throw new UsageError(
      "--group-judge needs --judge-model <name> (or $ROOST_JUDGE_MODEL)."
    );
  const apiKey = env.ROOST_JUDGE_API_KEY;
  const rubric = flags.get("judge-rubric");
  return {
    judge: {
      model,
      baseUrl:
        flags.get("judge-base-url") ??
        env.ROOST_JUDGE_BASE_URL ??
        "https://api.openai.com/v1",
      ...(apiKey ? { apiKey } : {}),
      ...(rubric === undefined ? {} : { rubric })
    }
  };
};
