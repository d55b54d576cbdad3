/** @module The built-in policies by name, as the CLI offers them. */

import type { Policy } from "./policy";
import { randomPolicy } from "./random-policy";
import { scriptedPolicy } from "./scripted-policy";

export const POLICY_NAMES = ["scripted", "random"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/**
 * A built-in policy: `scripted` solves counter, calculator and story;
 * `random` calls a random tool with sampled arguments (seedable).
 *
 * @example
 * const policy = builtInPolicy("random", { seed: 1 });
 */
export const builtInPolicy = (
  name: PolicyName,
  options: { seed?: number } = {}
): Policy => (name === "scripted" ? scriptedPolicy : randomPolicy(options));

export { randomPolicy, scriptedPolicy };
