/** @module Values a tool yields while it works: Results (stored and streamed) and updates (streamed only). */

import type { JsonObject, JsonValue } from "../json";
import { UPDATE_KINDS } from "../protocol/update-kinds";

export { UPDATE_KINDS };

import type { Mapping } from "../protocol/map-objects";
import { checkDisplay } from "./display";

/**
 * Objects a tool yields into the environment store under `[tool][name]`.
 * `llmMessage` is what the model reads about it; `{placeholders}` name
 * `name`, `count`, `payload_type` or a metadata key and are filled in.
 */
export interface Result {
  kind: "result";
  name: string;
  objects: JsonObject[];
  metadata: JsonObject;
  /** Shown to clients as a result; false keeps it in the store but out of displays. */
  display: boolean;
  llmMessage?: string;
  /** How a frontend draws it: `table`, `document`, or a name of your own (absent: `default`). */
  payloadType?: string;
  /** `{ displayField: dataField }` for the frontend; the objects are stored whole. */
  mapping?: Mapping;
}

export interface ResultInit {
  name?: string;
  objects: JsonObject[];
  metadata?: JsonObject;
  display?: boolean;
  llmMessage?: string;
  payloadType?: string;
  mapping?: Mapping;
}

/**
 * A bad `payloadType` or `mapping` throws here, inside the tool, so the
 * call fails with a message saying what to fix and nothing is stored.
 *
 * @example
 * yield result({ name: "papers", objects: rows, metadata: { query } });
 * yield result({
 *   name: "products",
 *   objects: rows,
 *   payloadType: "table",
 *   mapping: { product: "title", price: "price_eur" }
 * });
 */
export const result = (init: ResultInit): Result => ({
  kind: "result",
  name: init.name ?? "default",
  objects: init.objects,
  metadata: init.metadata ?? {},
  display: init.display ?? true,
  ...(init.llmMessage === undefined ? {} : { llmMessage: init.llmMessage }),
  ...checkDisplay({ payloadType: init.payloadType, mapping: init.mapping })
});

/** A progress update streamed to clients; never stored in the environment. */
export type Update =
  | { kind: "status"; text: string }
  | { kind: "text"; text: string }
  | { kind: "warning"; text: string }
  /** How far the call is: `progress` rises; `total`, when known, is where it ends. */
  | { kind: "progress"; progress: number; total?: number; message?: string }
  /** A log line for the people watching (MCP's notifications/message), at syslog's levels. */
  | { kind: "log"; level: LogLevel; data: JsonValue; logger?: string }
  /**
   * A recoverable error (Elysia's `Error`): the model is told and may try
   * again. `avoidable` when the tool said how to fix it (feedback); an
   * error without feedback is one the model probably cannot fix.
   */
  | {
      kind: "self_healing_error";
      feedback: string;
      message: string;
      avoidable: boolean;
    };

export type SelfHealingError = Extract<Update, { kind: "self_healing_error" }>;

/** Elysia's feedback for an error the tool could not explain; such an error is not avoidable. */
export const UNKNOWN_FEEDBACK = "An unknown issue occurred.";

export const status = (text: string): Update => ({ kind: "status", text });
export const text = (text: string): Update => ({ kind: "text", text });
export const warning = (text: string): Update => ({ kind: "warning", text });

/** Syslog's severities, least first, as MCP's logging names them. */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How far the call is: yield or emit it; MCP clients that asked get it as notifications/progress. */
export const progress = (
  done: number,
  total?: number,
  message?: string
): Update => ({
  kind: "progress",
  progress: done,
  ...(total === undefined ? {} : { total }),
  ...(message === undefined ? {} : { message })
});

/** A log line; MCP clients get it as notifications/message when they asked for its level. */
export const log = (
  level: LogLevel,
  data: JsonValue,
  logger?: string
): Update => ({
  kind: "log",
  level,
  data,
  ...(logger === undefined ? {} : { logger })
});
/**
 * A self-healing error. Give `feedback` (what to do differently) when the
 * model can fix it; give only `message` (what went wrong) when it cannot,
 * and the model is told to explain the problem to the user instead.
 */
export const error = (init: {
  feedback?: string;
  message?: string;
}): Update => {
  const given = init.feedback?.trim() ?? "";
  const avoidable = given !== "" && given !== UNKNOWN_FEEDBACK;
  const feedback = avoidable ? given : UNKNOWN_FEEDBACK;
  const message = init.message?.trim() || (avoidable ? feedback : "");
  return { kind: "self_healing_error", feedback, message, avoidable };
};

/**
 * The error as a model reads it (Elysia's wording, in our words): the
 * feedback of an avoidable error, else what went wrong and that the
 * user should hear of it.
 */
export const healingText = (e: SelfHealingError): string =>
  e.avoidable
    ? `Avoidable error: ${e.feedback} (a later call that follows this feedback should succeed)`
    : `Unknown error: ${e.message || e.feedback} (probably not fixable by another call: judge the message and tell the user about the problem)`;

/** A payload type that draws differently from plain JSON; `default` is the same as none. */
const shownAs = (r: Result): string | undefined =>
  r.display && r.payloadType !== undefined && r.payloadType !== "default"
    ? r.payloadType
    : undefined;

/**
 * What a Result tells the model about itself. A displayed result with a
 * payload type also says what the user was shown (Elysia's default says
 * only that, "Displayed: A table object with 3 objects."; here the key stays
 * too, so the model can still find the objects).
 */
export const describeResult = (r: Result): string => {
  if (r.llmMessage === undefined) {
    const stored = `Stored ${r.objects.length} object(s) under "${r.name}"`;
    const shown = shownAs(r);
    return shown === undefined
      ? `${stored}.`
      : `${stored}, displayed to the user as a ${shown}.`;
  }
  const values: Record<string, unknown> = {
    ...r.metadata,
    name: r.name,
    count: r.objects.length,
    payload_type: r.payloadType ?? "default"
  };
  // Unknown placeholders stay as written: a typo must not crash the tool.
  return r.llmMessage.replace(/\{(\w+)\}/g, (whole, key: string) =>
    Object.hasOwn(values, key) ? String(values[key]) : whole
  );
};
