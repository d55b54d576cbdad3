/** @module Values a tool yields while it works: Results (stored and streamed) and updates (streamed only). */

import type { JsonObject } from "../json";

/**
 * Objects a tool yields into the environment store under `[tool][name]`.
 * `llmMessage` is what the model reads about it; `{placeholders}` name
 * `name`, `count` or a metadata key and are filled in.
 */
export interface Result {
  kind: "result";
  name: string;
  objects: JsonObject[];
  metadata: JsonObject;
  /** Shown to clients as a result; false keeps it in the store but out of displays. */
  display: boolean;
  llmMessage?: string;
}

export interface ResultInit {
  name?: string;
  objects: JsonObject[];
  metadata?: JsonObject;
  display?: boolean;
  llmMessage?: string;
}

/**
 * @example
 * yield result({ name: "papers", objects: rows, metadata: { query } });
 */
export const result = (init: ResultInit): Result => ({
  kind: "result",
  name: init.name ?? "default",
  objects: init.objects,
  metadata: init.metadata ?? {},
  display: init.display ?? true,
  ...(init.llmMessage === undefined ? {} : { llmMessage: init.llmMessage })
});

/** A progress update streamed to clients; never stored in the environment. */
export type Update =
  | { kind: "status"; text: string }
  | { kind: "text"; text: string }
  | { kind: "warning"; text: string }
  /** A recoverable error: the model is told (feedback) and may try again. */
  | { kind: "self_healing_error"; feedback: string; message: string };

export const status = (text: string): Update => ({ kind: "status", text });
export const text = (text: string): Update => ({ kind: "text", text });
export const warning = (text: string): Update => ({ kind: "warning", text });
export const error = (init: {
  feedback: string;
  message?: string;
}): Update => ({
  kind: "self_healing_error",
  feedback: init.feedback,
  message: init.message ?? init.feedback
});

/** What a Result tells the model about itself. */
export const describeResult = (r: Result): string => {
  if (r.llmMessage === undefined) {
    return `Stored ${r.objects.length} object(s) under "${r.name}".`;
  }
  const values: Record<string, unknown> = {
    ...r.metadata,
    name: r.name,
    count: r.objects.length
  };
  // Unknown placeholders stay as written: a typo must not crash the tool.
  return r.llmMessage.replace(/\{(\w+)\}/g, (whole, key: string) =>
    Object.hasOwn(values, key) ? String(values[key]) : whole
  );
};
