/** @module Turning what a tool returned into the content of its tool message. */

import { utf8Length } from "../json";
import {
  type Content,
  type ContentPart,
  ContentPartSchema
} from "../messages/schema";
import type { Result } from "../store/result";
import { describeResult } from "../store/result";
import type { ToolException } from "./types";

const PARTS = Symbol.for("roost.content");

/** What `content(...)` returns: parts for the tool message, not a value. */
export interface ToolContent {
  readonly [PARTS]: readonly ContentPart[];
}

/**
 * A tool's answer as message parts rather than one string: text, images
 * (`image_url` with a data URL), audio (`input_audio`) and embedded
 * documents (`resource`). MCP clients get them as MCP's content types.
 *
 * @example
 * run: () => content([
 *   { type: "text", text: "The chart:" },
 *   { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }
 * ])
 */
export const content = (parts: readonly ContentPart[]): ToolContent => ({
  [PARTS]: parts
});

export const isToolContent = (value: unknown): value is ToolContent =>
  typeof value === "object" && value !== null && PARTS in value;

/** The parts, each checked: a malformed one is the tool's own error. */
const checkedParts = (value: ToolContent): ContentPart[] =>
  value[PARTS].map((part, i) => {
    const r = ContentPartSchema().safeParse(part);
    if (!r.success) {
      throw new Error(
        `content part ${i} is not a text, image_url, input_audio or resource part.`
      );
    }
    return r.data;
  });

/** Strings pass through; parts from `content(...)` stay parts; everything else is JSON (no Python spacing). */
export const toContent = (
  value: unknown,
  results: readonly Result[]
): Content => {
  if (typeof value === "string") return value;
  if (isToolContent(value)) return checkedParts(value);
  if (value === undefined) {
    return results.length > 0
      ? results.map(describeResult).join("\n")
      : "Done.";
  }
  return JSON.stringify(value) ?? String(value);
};

/**
 * Caps content at `maxBytes` of UTF-8 with a marker saying how much was
 * cut: a string is cut; parts are kept whole, in order, while they fit
 * (binary data cannot be cut), and a text part says what was left out.
 */
export const capContent = (content: Content, maxBytes: number): Content => {
  if (typeof content === "string") return capText(content, maxBytes);
  let left = maxBytes;
  const kept: ContentPart[] = [];
  for (const [i, part] of content.entries()) {
    const size = utf8Length(JSON.stringify(part));
    if (size > left) {
      const rest = content.slice(i);
      const bytes = rest.reduce((n, p) => n + utf8Length(JSON.stringify(p)), 0);
      kept.push({
        type: "text",
        text: `[truncated: ${rest.length} more parts, ${bytes} bytes]`
      });
      return kept;
    }
    left -= size;
    kept.push(part);
  }
  return kept;
};

/** Caps text at `maxBytes` of UTF-8 with a marker saying how much was cut. */
export const capText = (content: string, maxBytes: number): string => {
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
