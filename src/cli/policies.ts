/** @module The policy a rollout runs: `random`, built in, or a module of the user's that exports one. */

import {
  type OpenAIPolicyOptions,
  openaiPolicy
} from "../client/openai-policy";
import type { Policy } from "../client/policy";
import { randomPolicy } from "../client/random-policy";
import { UsageError } from "./args";
import { importModule } from "./import-module";

/**
 * `random` calls a random tool with sampled arguments (seedable); `openai`
 * asks a model behind an OpenAI-compatible endpoint; anything else is a path to an ES module exporting a policy as `policy` or as its
 * default export. The CLI ships no environment-specific policy: a solver
 * belongs beside the environment it solves (the repository's examples have
 * one in examples/scripted-policy/).
 *
 * @example
 * const policy = await loadPolicy("./my-policy.mjs", {});
 */
export const loadPolicy = async (
  spec: string,
  options: { seed?: number; model?: OpenAIPolicyOptions }
): Promise<Policy> => {
  if (spec === "random") return randomPolicy(options);
  if (spec === "openai") {
    if (!options.model) throw new UsageError("--policy openai needs --model.");
    return openaiPolicy(options.model);
  }
  const loaded = await importModule(
    spec,
    `--policy "${spec}" is neither "random" nor a module that loads`
  );
  const policy = loaded.policy ?? loaded.default;
  if (typeof policy !== "function")
    throw new UsageError(
      `${spec} exports no policy: export a function (observations, tools, history) => action as "policy" or as the default export.`
    );
  return policy as Policy;
};
