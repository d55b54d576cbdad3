/** @module `sequence({ … })`: components in order, stopping at the first that scores 0. */

import {
  checkComponents,
  metricsOf,
  pathsOf,
  scoreComponent,
  skipped
} from "./component";
import type { Component, Entries, Rubric } from "./types";

/**
 * OpenEnv's Sequential, with named steps: scores the components in the
 * order declared and stops at the first that scores 0 (or throws); the
 * ones after it are reported skipped and the sequence is 0. When none
 * scored 0 its value is the last component's, so cheap checks go first
 * and the real score last.
 *
 * @example
 * sequence({ parses: isJson, valid: matchesSchema, exact: sameAsAnswer })
 */
export const sequence = <Args>(
  components: Record<string, Component<Args>>
): Rubric<Args> => {
  checkComponents("a sequence", components);
  const named = Object.entries(components);
  return {
    kind: "rubric",
    paths: named.flatMap(([name, c]) => pathsOf(name, c)),
    metrics: named.flatMap(([name, c]) => metricsOf(name, c)),
    async score(args) {
      const entries: Entries = [];
      let value = 0;
      for (const [i, [name, c]] of named.entries()) {
        const scored = await scoreComponent(name, c, args);
        entries.push(...scored.entries);
        value = scored.value;
        if (value === 0) {
          for (const [n, rest] of named.slice(i + 1)) {
            entries.push(...skipped(n, rest));
          }
          break;
        }
      }
      return { value, entries };
    }
  };
};
