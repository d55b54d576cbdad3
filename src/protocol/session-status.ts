/** @module A session's status, as routes, snapshots and the client report it. */

import * as z from "zod";
import { lazy } from "../lazy";
import { NameSchema } from "./limits";

/** An ISO 8601 UTC timestamp, as `Date.prototype.toISOString` writes it. */
export const TimestampSchema = lazy(() => z.iso.datetime());

export const SessionPhaseSchema = lazy(() =>
  z.enum(["created", "running", "done", "truncated"])
);
export type SessionPhase = z.infer<ReturnType<typeof SessionPhaseSchema>>;

export const SessionStatusSchema = lazy(() =>
  z
    .object({
      session_id: z.string(),
      environment: NameSchema(),
      /** 0 until the first reset. */
      episode: z.number().int().nonnegative(),
      /** Steps in this episode. */
      steps: z.number().int().nonnegative(),
      /** Reward of the last step. */
      reward: z.number(),
      /** Sum of rewards over this episode. */
      return: z.number(),
      done: z.boolean(),
      truncated: z.boolean(),
      status: SessionPhaseSchema(),
      created_at: TimestampSchema(),
      last_used_at: TimestampSchema().optional()
    })
    .meta({ id: "SessionStatus", description: "Where a session stands." })
);
export type SessionStatus = z.infer<ReturnType<typeof SessionStatusSchema>>;
