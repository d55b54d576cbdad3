/** @module A call's arguments: parsed, filled from state, validated against the tool's input. */

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
      filled[param] = state.get(stateKey as never);
    }
  }
  const parsed = tool.input.safeParse(filled);
  if (!parsed.success) {
    return {
      ok: false,
      message: `Invalid arguments for ${name}: ${describeIssues(parsed.error.issues)}`
    };
  }
  return { ok: true, value: parsed.data };
};
