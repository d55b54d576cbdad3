/**
 * @module The JSON in a model's answer, however the model wrapped it: bare,
 * in a ``` fence (with or without a language tag), after a `<think>`
 * block, or amid prose. The one reader for every answer Roost asks a model
 * to give as JSON (a judge's verdict, a decision tree's choice, a group
 * judge's scores), so each tolerates the same wrappings.
 */

import type { JsonObject, JsonValue } from "./json";

const THINK_RE = /<think>[\s\S]*?<\/think>/g;
const FENCE_RE = /```[\w-]*\s*([\s\S]*?)\s*```/;

/** A JSON object, not an array or null: what a judge's answer must be. */
export const isJsonObject = (value: JsonValue): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The answer's text without its reasoning block: what the model answered,
 * and what an error may say the length of.
 */
export const answerText = (text: string): string =>
  text.replace(THINK_RE, "").trim();

/**
 * The first of these that parses as JSON and that `accept` takes: the
 * whole answer, the first fence's content, then the span from the first
 * `{` to the last `}`. Most literal first, so an answer that is JSON is
 * read as it is (a string that holds JSON stays a string: the caller
 * decides whether to read it again). Undefined when none does.
 */
export const jsonInProse = (
  text: string,
  accept: (value: JsonValue) => boolean = () => true
): JsonValue | undefined => {
  const cleaned = answerText(text);
  const candidates = [cleaned, FENCE_RE.exec(cleaned)?.[1]];
  const start = cleaned.indexOf("{");
  const end = cleaned.lastIndexOf("}");
  if (start >= 0 && end > start) candidates.push(cleaned.slice(start, end + 1));
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    try {
      const value = JSON.parse(candidate) as JsonValue;
      if (accept(value)) return value;
    } catch {
      // the next candidate
    }
  }
  return undefined;
};
