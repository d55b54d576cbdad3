/** @module What one run of the model's code may use, with defaults, checked once when the tool is defined. */

import { RoostError } from "../errors";

export interface CodeLimits {
  /**
   * Wall time of one run, start of the isolate included, enforced from
   * the session: past it the call fails and the isolate is abandoned
   * (default 5 000 ms).
   */
  timeoutMs: number;
  /**
   * CPU time the platform grants the isolate (Dynamic Workers' custom
   * limit; default 1 000 ms). Enforced on Cloudflare only: local workerd
   * enforces no CPU limit, which is what `steps` is for.
   */
  cpuMs: number;
  /**
   * Loop iterations plus function calls the code may make (default
   * 10 000 000): stops code that never ends in every runtime, local
   * workerd included. Built-in work (a huge `repeat`, a regular
   * expression that backtracks) counts no steps.
   */
  steps: number;
  /** Bytes of console output one run may write; past it the run fails (default 64 KiB). */
  outputBytes: number;
  /** Bytes of the return value as JSON; past it the run fails (default 64 KiB). */
  resultBytes: number;
  /** Characters of code the model may send (default 100 000). */
  codeChars: number;
  /** Results one run may add (default 100). */
  results: number;
}

export const DEFAULT_CODE_LIMITS: Readonly<CodeLimits> = {
  timeoutMs: 5_000,
  cpuMs: 1_000,
  steps: 10_000_000,
  outputBytes: 64 * 1024,
  resultBytes: 64 * 1024,
  codeChars: 100_000,
  results: 100
};

/** The defaults with `limits` over them; a limit that is no whole number > 0 throws. */
export const resolveCodeLimits = (
  limits: Partial<CodeLimits> = {}
): CodeLimits => {
  const resolved = { ...DEFAULT_CODE_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Object.hasOwn(DEFAULT_CODE_LIMITS, name)) {
      throw new RoostError(
        "invalid_request",
        `codeTool: unknown limit "${name}". Limits: ${Object.keys(DEFAULT_CODE_LIMITS).join(", ")}.`
      );
    }
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RoostError(
        "invalid_request",
        `codeTool: limits.${name} must be a whole number > 0, got ${String(value)}.`
      );
    }
  }
  return resolved;
};
