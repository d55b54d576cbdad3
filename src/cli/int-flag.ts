/** @module A whole-number flag, read and checked once for every command. */

import { UsageError } from "./usage-error";

/** `--name`'s value as a whole number ≥ `min`, or undefined when absent. */
export const optionalInt = (
  flags: Map<string, string>,
  name: string,
  min: number
): number | undefined => {
  const text = flags.get(name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min)
    throw new UsageError(
      `--${name} must be a whole number ≥ ${min}, not "${text}".`
    );
  return value;
};
