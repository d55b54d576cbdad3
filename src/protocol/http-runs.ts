/** @module Decision-tree runs: start (202), read (optionally waiting) and cancel. */

import * as z from "zod";
import { lazy } from "../lazy";
import { ErrorBodySchema } from "./error-body";
import { SessionIdSchema } from "./http-sessions";
import { JsonObjectSchema } from "./json-value";
import { integerString } from "./query";
import { TimestampSchema } from "./session-status";

/** Longest `?wait=` in seconds: long enough to skip polling, short of request timeouts. */
export const MAX_RUN_WAIT_SECONDS = 60;

export const RunRequestSchema = lazy(() =>
  z
    .strictObject({
      prompt: z.string().min(1),
      /** A configured model name; the deployment's default when omitted. */
      model: z.string().min(1).optional()
    })
    .meta({ id: "RunRequest", description: "Starts a decision-tree run." })
);
export type RunRequest = z.infer<ReturnType<typeof RunRequestSchema>>;

export const RunCreatedSchema = lazy(() =>
  z
    .object({ run_id: z.string() })
    .meta({ id: "RunCreated", description: "The run was queued." })
);
export type RunCreated = z.infer<ReturnType<typeof RunCreatedSchema>>;

export const RunParamsSchema = lazy(() =>
  z.object({
    id: SessionIdSchema(),
    run_id: z.string().min(1).max(256)
  })
);
export type RunParams = z.infer<ReturnType<typeof RunParamsSchema>>;

export const RunQuerySchema = lazy(() =>
  z.object({
    /** Seconds to wait for the run to finish before answering. */
    wait: integerString({ min: 0, max: MAX_RUN_WAIT_SECONDS, default: 0 })
  })
);
export type RunQuery = z.infer<ReturnType<typeof RunQuerySchema>>;

export const RunStateSchema = lazy(() =>
  z.enum(["queued", "running", "completed", "cancelled", "failed"])
);
export type RunState = z.infer<ReturnType<typeof RunStateSchema>>;

/**
 * How a completed run ended: a text response, an end-capable tool the model
 * ended on, a task the model judged impossible, or the recursion limit
 * (followed by a forced final answer).
 */
export const RunOutcomeSchema = lazy(() =>
  z.enum(["answered", "ended", "impossible", "recursion_limit"])
);
export type RunOutcome = z.infer<ReturnType<typeof RunOutcomeSchema>>;

export const RunStatusSchema = lazy(() =>
  z
    .object({
      run_id: z.string(),
      state: RunStateSchema(),
      prompt: z.string(),
      model: z.string().optional(),
      passes: z.number().int().nonnegative(),
      /** Set by a cancel request; honoured between passes. */
      cancel_requested: z.boolean(),
      final_text: z.string().optional(),
      /** Tasks completed, as the tree data records them. */
      tasks: z.array(JsonObjectSchema()),
      /** Set once `state` is "completed". */
      outcome: RunOutcomeSchema().optional(),
      /** Set once `state` is "failed". */
      error: ErrorBodySchema().optional(),
      created_at: TimestampSchema(),
      updated_at: TimestampSchema()
    })
    .meta({ id: "RunStatus", description: "A run's progress and outcome." })
);
export type RunStatus = z.infer<ReturnType<typeof RunStatusSchema>>;
