/**
 * @module What an environment's hook threw, as the caller sees it: a
 * `hook_failed` error naming the environment, the hook and the error,
 * with the author's stack kept as its cause for the session to log (and,
 * in development, to answer).
 */

import { RoostError } from "../errors";
import { toException } from "../tools/content";
import type { ToolException } from "../tools/types";

/** The hooks an author writes that run inside a call. */
export type HookName =
  | "reset"
  | "step"
  | "evaluate"
  | "rubric"
  | "episodeRubric"
  | "frame"
  | "onClose"
  /** An agent the environment plays (played-turns.ts). */
  | "play";

/** What a `hook_failed` error says beside its message. */
export interface HookFailureDetails {
  environment: string;
  hook: HookName;
  /** What the hook threw: its message (the error's name when it has none). */
  error: string;
  /** Its stack: only in development (ROOST_DEV=1), added by the session. */
  stack?: string;
}

/**
 * Runs one of the environment's hooks. A RoostError it throws is a refusal
 * on purpose and passes as it is (a 4xx the author chose, say); anything
 * else is the author's bug, which without this would be a bare 500 that
 * names nothing.
 */
export const callHook = async <T>(
  environment: string,
  hook: HookName,
  run: () => T | Promise<T>
): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    throw hookFailure(environment, hook, error);
  }
};

/** The synchronous form, for hooks a read calls (`frame`). */
export const callHookSync = <T>(
  environment: string,
  hook: HookName,
  run: () => T
): T => {
  try {
    return run();
  } catch (error) {
    throw hookFailure(environment, hook, error);
  }
};

/** What each hook failure carries beyond its wire form, kept off the error so its body stays what it says. */
const failures = new WeakMap<
  RoostError,
  { details: HookFailureDetails; thrown: ToolException }
>();

const hookFailure = (
  environment: string,
  hook: HookName,
  error: unknown
): unknown => {
  if (error instanceof RoostError) return error;
  const thrown = toException(error);
  const details: HookFailureDetails = {
    environment,
    hook,
    error: thrown.message
  };
  const failure = new RoostError(
    "hook_failed",
    `The ${hook} hook of environment "${environment}" threw: ${thrown.message}`,
    details,
    { cause: error }
  );
  failures.set(failure, { details, thrown });
  return failure;
};

/** A hook failure's details and what its hook threw; undefined for any other error. */
export const hookFailureOf = (
  error: unknown
): { details: HookFailureDetails; thrown: ToolException } | undefined =>
  error instanceof RoostError ? failures.get(error) : undefined;

/**
 * The failure with `stack` (its own, mapped to the author's files where
 * the session can) in the details: what a development session answers,
 * so the author reads where it threw in the response itself.
 */
export const withStack = (error: unknown, stack: string): unknown => {
  if (!(error instanceof RoostError)) return error;
  const failure = failures.get(error);
  if (failure === undefined) return error;
  return new RoostError(
    error.code,
    error.message,
    { ...failure.details, stack },
    { cause: error.cause }
  );
};
