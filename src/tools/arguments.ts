/** @module A call's arguments: parsed, filled from state, validated against the tool's input. */

import type * as z from "zod";
import { describeIssues } from "../issues";
import { checkJsonLimits } from "../protocol/json-value";
import { DEFAULT_LIMITS, type Limits } from "../protocol/limits";
import type { StateAccess } from "../state/types";
import type { Tool } from "./define-tool";

export type Prepared =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; message: string };

export type JsonLimits = Pick<Limits, "jsonDepth" | "stringBytes">;

export const prepareArguments = (
  tool: Tool,
  name: string,
  raw: string | Record<string, unknown>,
  state: StateAccess,
  limits: JsonLimits = DEFAULT_LIMITS
): Prepared => {
  let args: unknown = raw;
  if (typeof raw === "string") {
    try {
      args = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch {
      return {
        ok: false,
        message: `Invalid arguments for ${name}: not valid JSON.`
      };
    }
    // A body's limits held for the string, not for what it encodes: 256 KB
    // of brackets nest far deeper than any validator should recurse.
    const tooLarge = checkJsonLimits(args, limits);
    if (tooLarge) {
      return {
        ok: false,
        message: `Invalid arguments for ${name}: ${tooLarge.message}`
      };
    }
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return {
      ok: false,
      message: `Invalid arguments for ${name}: expected a JSON object.`
    };
  }
  // A null-prototype copy: `__proto__` in the model's JSON stays a plain key.
  const filled: Record<string, unknown> = Object.assign(
    Object.create(null),
    args
  );
  for (const [stateKey, param] of Object.entries(tool.inputsFromState ?? {})) {
    // The model's value wins; state fills only what it left out.
    if (
      typeof param === "string" &&
      !(param in filled) &&
      state.has(stateKey)
    ) {
      filled[param] = state.get(stateKey);
    }
  }
  const parsed = tool.input.safeParse(filled);
  if (!parsed.success) {
    return {
      ok: false,
      message: `Invalid arguments for ${name}: ${describeArguments(tool, filled, parsed.error.issues)}`
    };
  }
  return { ok: true, value: parsed.data };
};

const quoted = (keys: readonly PropertyKey[]) =>
  keys.map((k) => JSON.stringify(String(k))).join(", ");

const valueAt = (value: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (v, k) =>
      typeof v === "object" && v !== null
        ? (v as Record<PropertyKey, unknown>)[k]
        : undefined,
    value
  );

/**
 * zod's issues with the key mistakes put in words a model acts on: a
 * missing key is named as missing (not "received undefined"), the keys the
 * input does not know are named, and then the keys it takes (those state
 * fills are not the model's to send).
 */
const describeArguments = (
  tool: Tool,
  args: Record<string, unknown>,
  issues: readonly z.core.$ZodIssue[]
): string => {
  const shape = tool.input.shape;
  const fromState = new Set(Object.values(tool.inputsFromState ?? {}));
  const clauses: string[] = [];
  let aboutKeys = false;
  const rest: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    const at = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k));
      clauses.push(
        `unexpected key${keys.length === 1 ? "" : "s"} ${quoted(keys)}`
      );
      aboutKeys = true;
    } else if (
      issue.code === "invalid_type" &&
      issue.path.length > 0 &&
      valueAt(args, issue.path) === undefined
    ) {
      clauses.push(`missing required key ${quoted([at])}`);
      aboutKeys = true;
    } else rest.push(issue);
  }
  if (rest.length > 0) clauses.push(describeIssues(rest));
  // An object input drops keys it does not know; named only beside an
  // error, where a misspelt key is the likely cause.
  const unknown = Object.keys(args).filter(
    (k) => !(k in shape) && !issues.some((i) => i.code === "unrecognized_keys")
  );
  if (unknown.length > 0) {
    clauses.push(
      `unexpected key${unknown.length === 1 ? "" : "s"} ${quoted(unknown)}`
    );
    aboutKeys = true;
  }
  const expected = Object.keys(shape)
    .filter((k) => !fromState.has(k))
    .map((k) =>
      shape[k]!.safeParse(undefined).success ? `${k} (optional)` : k
    );
  const text = clauses.join("; ");
  return `${text}${text.endsWith(".") ? "" : "."}${aboutKeys ? ` Expected keys: ${expected.join(", ") || "none"}.` : ""}`;
};
