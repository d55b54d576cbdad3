/** @module Turning what a tool returned into the text of its tool message. */

import { utf8Length } from "../json";
import type { Result } from "../store/result";
import { describeResult } from "../store/result";
import type { ToolException } from "./types";

/** Strings pass through; everything else is JSON (no Python spacing). */
export const toContent = (
  value: unknown,
  results: readonly Result[]
): string => {
  if (typeof value === "string") return value;
  if (value === undefined) {
    return results.length > 0
      ? results.map(describeResult).join("\n")
      : "Done.";
  }
  return JSON.stringify(value) ?? String(value);
};

/** Caps content at `maxBytes` of UTF-8 with a marker saying how much was cut. */
export const capContent = (content: string, maxBytes: number): string => {
  const size = utf8Length(content);
  if (size <= maxBytes) return content;
  const bytes = new TextEncoder().encode(content).slice(0, maxBytes);
  // A cut inside a multi-byte character decodes to U+FFFD; drop it.
  const head = new TextDecoder().decode(bytes).replace(/\uFFFD$/, "");
  return `${head}\n[truncated: ${size - utf8Length(head)} more bytes]`;
};

/** A message that reads well to a model, from anything thrown. */
export const describeError = (error: unknown): string =>
  error instanceof Error ? error.message || error.name : String(error);

/**
 * What a tool's author needs of anything its code threw: the model's
 * message, and the stack when an Error was thrown (V8 starts it with
 * the name and message, so it reads on its own in a log).
 */
export const toException = (error: unknown): ToolException => {
  const stack = error instanceof Error ? error.stack : undefined;
  return {
    message: describeError(error),
    ...(typeof stack === "string" && stack !== "" ? { stack } : {})
  };
};
