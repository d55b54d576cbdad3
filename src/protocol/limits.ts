/** @module Size and rate limits (docs/11-limits.md) and the schema of a name (its rule is names.ts's). */

import * as z from "zod";
import { lazy } from "../lazy";
import { NAME_RE } from "../names";

const MIB = 1024 * 1024;
const KIB = 1024;

/** Every default limit. Each is configurable; sizes are UTF-8 bytes. */
export const DEFAULT_LIMITS = {
  requestBodyBytes: MIB,
  wsFrameBytes: MIB,
  objectsPerResult: 1000,
  jsonDepth: 32,
  stringBytes: 256 * KIB,
  toolCallsPerAction: 64,
  storeEntriesPerSession: 1_000_000,
  stateValueBytes: MIB,
  toolContentBytes: 256 * KIB,
  stagedBytesPerStep: 8 * MIB,
  eventsRetained: 10_000,
  eventsRetainedBytes: 16 * MIB,
  mutationsPerSecond: 50,
  llmViewBytes: 32 * KIB
} as const;

const limit = (key: keyof typeof DEFAULT_LIMITS) =>
  z.number().int().positive().default(DEFAULT_LIMITS[key]);

/**
 * Limits as configured. Parsing a partial object fills in the defaults, so
 * `LimitsSchema.parse(options.limits ?? {})` is the whole configuration step.
 */
export const LimitsSchema = lazy(() =>
  z
    .strictObject({
      requestBodyBytes: limit("requestBodyBytes"),
      wsFrameBytes: limit("wsFrameBytes"),
      objectsPerResult: limit("objectsPerResult"),
      jsonDepth: limit("jsonDepth"),
      stringBytes: limit("stringBytes"),
      toolCallsPerAction: limit("toolCallsPerAction"),
      storeEntriesPerSession: limit("storeEntriesPerSession"),
      stateValueBytes: limit("stateValueBytes"),
      toolContentBytes: limit("toolContentBytes"),
      stagedBytesPerStep: limit("stagedBytesPerStep"),
      eventsRetained: limit("eventsRetained"),
      eventsRetainedBytes: limit("eventsRetainedBytes"),
      mutationsPerSecond: limit("mutationsPerSecond"),
      llmViewBytes: limit("llmViewBytes")
    })
    .meta({
      id: "Limits",
      description: "Size and rate limits of a deployment."
    })
);
export type Limits = z.infer<ReturnType<typeof LimitsSchema>>;

/**
 * A tool, result or environment name. Issues it raises are recognised by
 * `issuesToErrorBody` and reported as `invalid_name` rather than `invalid_request`.
 */
export const NameSchema = lazy(() =>
  z
    .string()
    .regex(NAME_RE, "Names are 1 to 64 characters of letters, digits, _ and -.")
);
export type Name = z.infer<ReturnType<typeof NameSchema>>;
