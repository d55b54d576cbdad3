/** @module The errors typed state throws, worded once so every path says the same. */

import type * as z from "zod";
import { RoostError } from "../errors";

/** Zod issues reduced to JSON details a client can show. */
export interface StateIssue {
  code: string;
  path: (string | number)[];
  message: string;
}

export const issuesOf = (error: z.core.$ZodError): StateIssue[] =>
  error.issues.map((i) => ({
    code: i.code,
    path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: i.message
  }));

const whyOf = (issues: StateIssue[]): string =>
  issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ` : "") + i.message)
    .join("; ");

export const invalidValue = (
  key: string,
  issues: StateIssue[],
  prefix = ""
): RoostError =>
  new RoostError("invalid_state_value", `${key}: ${prefix}${whyOf(issues)}`, {
    key,
    issues
  });

export const notJson = (key: string, problem: string): RoostError =>
  new RoostError(
    "invalid_state_value",
    `${key}: ${problem}; state values must be JSON.`,
    { key, issues: [] }
  );

export const unknownKey = (key: string, keys: string[]): RoostError =>
  new RoostError(
    "unknown_state_key",
    `State key "${key}" is not in the schema. Keys: ${[...keys, "messages"].join(", ")}.`,
    { key }
  );

export const tooLarge = (key: string, bytes: number, limit: number) =>
  new RoostError(
    "payload_too_large",
    `${key}: the value is ${bytes} bytes as JSON; the limit is ${limit}. Keep large, growing data in the environment store.`,
    { limit: "stateValueBytes", max: limit, key, bytes }
  );
