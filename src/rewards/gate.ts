/** @module `gate(check, rubric)`: a check that zeroes the rest when it fails. */

import { RoostError } from "../errors";
import { isRubric, metricsOf, pathsOf, scoreComponent } from "./component";
import type { Component, Entries, Rubric } from "./types";

export interface GateOptions {
  /** The check passes when it scores at least this (default 1: a boolean check that returned true). */
  threshold?: number;
}

/**
 * Scores `check` first, reported as `check`; when it passes, the gate's
 * value is what `rubric` scores, and `rubric`'s components are reported
 * beside `check` (a reward function is reported as `score`). When the
 * check fails (or throws) the gate is 0 and those are reported skipped:
 * OpenEnv's Gate, with the check named.
 *
 * @example
 * gate(({ observations }) => observations.every((o) => !o.is_error),
 *      defineRubric({ exact, close }, { weights: { close: 0.5 } }))
 */
export const gate = <Args>(
  check: Component<Args>,
  rubric: Component<Args>,
  options: GateOptions = {}
): Rubric<Args> => {
  const threshold = options.threshold ?? 1;
  if (!Number.isFinite(threshold)) {
    throw new RoostError(
      "invalid_request",
      "A gate's threshold must be a finite number."
    );
  }
  if (
    isRubric(rubric) &&
    rubric.paths.some((p) => p.split(".")[0] === "check")
  ) {
    throw new RoostError(
      "invalid_name",
      'A gated rubric cannot have a component named "check": the gate reports its check under that name.'
    );
  }
  // A rubric's components sit beside the check; a lone function has no
  // name of its own, so it is `score`.
  const inner = async (args: Args) =>
    isRubric(rubric)
      ? await rubric.score(args)
      : await scoreComponent("score", rubric, args).then((s) => ({
          value: s.value,
          entries: s.entries
        }));
  const innerPaths = isRubric(rubric) ? rubric.paths : ["score"];
  return {
    kind: "rubric",
    paths: [...pathsOf("check", check), ...innerPaths],
    metrics: [
      ...metricsOf("check", check),
      ...(isRubric(rubric) ? (rubric.metrics ?? []) : [])
    ],
    async score(args) {
      const c = await scoreComponent("check", check, args);
      if (c.failed || c.value < threshold) {
        const rest: Entries = innerPaths.map((p) => [p, { skipped: true }]);
        return { value: 0, entries: [...c.entries, ...rest] };
      }
      const scored = await inner(args);
      return {
        value: scored.value,
        entries: [...c.entries, ...scored.entries]
      };
    }
  };
};
