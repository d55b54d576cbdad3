/** @module Shared fixtures of the state contract suites (test-only). */

import { expect } from "vitest";
import * as z from "zod";
import { type ErrorCode, RoostError } from "../errors";
import { defineState } from "./define-state";
import { mergeLists } from "./handlers";
import { State, type StateOptions } from "./state";
import type { StateBackend, TranscriptBackend } from "./types";

export type CreateBackends = () => {
  backend: StateBackend;
  transcript: TranscriptBackend;
};

/** One key of each kind the rules talk about. */
export const fixture = defineState({
  count: { type: z.number().int().default(0) },
  name: { type: z.string() },
  tags: { type: z.array(z.string()).default([]) },
  numbers: { type: z.array(z.number()) },
  maybe: { type: z.array(z.number()).nullable() },
  profile: { type: z.object({ id: z.number(), nick: z.string().optional() }) },
  sorted: {
    type: z.array(z.number()),
    handler: (current, incoming) =>
      mergeLists<number>(current, incoming).sort((a, b) => a - b)
  },
  anything: { type: z.unknown() }
});

export const build = (create: CreateBackends, options?: StateOptions) => {
  const backends = create();
  const state = new State(
    fixture,
    backends.backend,
    backends.transcript,
    options
  );
  return { ...backends, state };
};

/** Runs `fn`, expects a RoostError with `code`, and returns it. */
export const expectError = (fn: () => unknown, code: ErrorCode) => {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RoostError);
  expect((thrown as RoostError).code).toBe(code);
  return thrown as RoostError;
};
