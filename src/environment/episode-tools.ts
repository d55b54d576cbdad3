/** @module The tools of one episode: every tool of the environment, or the subset its reset chose (Aviary's `reset() -> (obs, tools)`). */

import { RoostError } from "../errors";
import type { Environment } from "./define-environment";

/**
 * The names a reset chose, checked against the environment and put in the
 * environment's order, each once. An unknown name is the environment's
 * mistake, not the caller's: a 500 that names it, and the reset is undone.
 */
export const checkEpisodeTools = (
  environment: Environment,
  chosen: readonly unknown[]
): string[] => {
  for (const name of chosen) {
    if (typeof name !== "string" || !environment.tools.has(name)) {
      throw new RoostError(
        "internal",
        `The reset of ${environment.name} chose tool ${JSON.stringify(name)}, which ${environment.name} does not have (it has: ${[...environment.tools.keys()].join(", ") || "none"}).`,
        { tool: typeof name === "string" ? name : String(name) }
      );
    }
  }
  const wanted = new Set(chosen as string[]);
  return [...environment.tools.keys()].filter((name) => wanted.has(name));
};

/**
 * The environment as one episode sees it: `tools` and `toolSchemas` hold
 * only the episode's tools, so a step treats the others as unknown
 * (an "Invalid tool call" message, nothing runs) and a tree never offers
 * them. `undefined` means every tool.
 */
export const episodeEnvironment = (
  environment: Environment,
  tools: readonly string[] | undefined
): Environment => {
  if (tools === undefined) return environment;
  const keep = new Set(tools);
  return {
    ...environment,
    tools: new Map([...environment.tools].filter(([name]) => keep.has(name))),
    toolSchemas: environment.toolSchemas.filter((t) =>
      keep.has(t.function.name)
    )
  };
};
