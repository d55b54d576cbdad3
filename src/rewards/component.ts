/** @module Scoring one named component safely, and the rules for component names. */

import { RoostError } from "../errors";
import type { RewardComponent } from "../protocol";
import { capText, describeError } from "../tools/content";
import { below } from "./judges";
import type { Component, Entries, Rubric } from "./types";

/**
 * Letters, digits, `_` and `-`, not starting with a digit: dots join a
 * path, and a key that reads as an integer would be moved to the front of
 * a JSON object, which would break the report's declared order.
 */
export const COMPONENT_NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export const isRubric = <Args>(c: Component<Args>): c is Rubric<Args> =>
  typeof c === "object" && c !== null && c.kind === "rubric";

/** Refuses, when a rubric is defined, names that would make an ambiguous report. */
export const checkComponents = <Args>(
  what: string,
  components: Record<string, Component<Args>>
): void => {
  const names = Object.keys(components);
  if (names.length === 0) {
    throw new RoostError("invalid_request", `${what} needs a component.`);
  }
  for (const name of names) {
    if (!COMPONENT_NAME_RE.test(name)) {
      throw new RoostError(
        "invalid_name",
        `Component name "${name}" of ${what} must match ${COMPONENT_NAME_RE}.`
      );
    }
    const c = components[name];
    if (typeof c !== "function" && !isRubric(c as Component<Args>)) {
      throw new RoostError(
        "invalid_request",
        `Component "${name}" of ${what} must be a reward function or a rubric.`
      );
    }
  }
};

/** What one component scored: its value (0 when it failed) and its entries, its own first. */
export const scoreComponent = async <Args>(
  name: string,
  c: Component<Args>,
  given: Args
): Promise<{ value: number; failed: boolean; entries: Entries }> => {
  // A judge below keys its verdict by where it sits in the report.
  const args = below(given, name);
  if (isRubric(c)) {
    // A rubric catches its own components' throws; one of its own (a
    // combinator written by hand) is reported like a function's.
    try {
      const scored = await c.score(args);
      return {
        value: scored.value,
        failed: false,
        entries: [[name, scored.value], ...prefix(name, scored.entries)]
      };
    } catch (thrown) {
      return failed(name, thrown, c.paths);
    }
  }
  try {
    const raw = await c(args);
    const value = typeof raw === "boolean" ? (raw ? 1 : 0) : raw;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      return failed(
        name,
        new Error(
          `returned ${typeof raw === "number" ? String(raw) : typeof raw}, not a finite number or a boolean`
        ),
        []
      );
    }
    return { value, failed: false, entries: [[name, value]] };
  } catch (thrown) {
    return failed(name, thrown, []);
  }
};

const failed = (
  name: string,
  thrown: unknown,
  paths: readonly string[]
): { value: number; failed: true; entries: Entries } => ({
  value: 0,
  failed: true,
  entries: [
    [name, { value: 0, error: errorText(thrown) }],
    ...paths.map((p): [string, RewardComponent] => [
      `${name}.${p}`,
      { skipped: true }
    ])
  ]
});

/**
 * A failed component's message goes into the step's answer and its logged
 * event, once per step: capped, as a tool's exception is, so a component
 * that throws a megabyte cannot grow every event row by one.
 */
export const COMPONENT_ERROR_BYTES = 1024;

const errorText = (thrown: unknown): string =>
  capText(describeError(thrown), COMPONENT_ERROR_BYTES);

/** A component and everything below it, reported as skipped. */
export const skipped = <Args>(name: string, c: Component<Args>): Entries => [
  [name, { skipped: true }],
  ...(isRubric(c) ? c.paths : []).map((p): [string, RewardComponent] => [
    `${name}.${p}`,
    { skipped: true }
  ])
];

export const prefix = (name: string, entries: Entries): Entries =>
  entries.map(([p, e]) => [`${name}.${p}`, e]);

/** A component's own metrics, relative to it: none for a reward function. */
export const metricsOf = <Args>(name: string, c: Component<Args>): string[] =>
  isRubric(c) ? (c.metrics ?? []).map((p) => `${name}.${p}`) : [];

/** The relative names a component contributes below its parent. */
export const pathsOf = <Args>(name: string, c: Component<Args>): string[] => [
  name,
  ...(isRubric(c) ? c.paths.map((p) => `${name}.${p}`) : [])
];
