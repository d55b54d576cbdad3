/** @module `POST /v1/sessions/:id/rescore`: a registered rubric applied again to the retained episodes. */

import * as z from "zod";
import { lazy } from "../lazy";
import { NameSchema } from "./limits";
import { CursorSchema } from "./query";
import { RewardComponentsSchema } from "./reward-components";

/** Episodes one request re-scores at most; more are paged with `next_cursor`. */
export const RESCORE_EPISODES = { default: 20, max: 100 } as const;

const EpisodeNumber = lazy(() => z.number().int().positive());

export const RescoreRequestSchema = lazy(() =>
  z
    .strictObject({
      /** A name of the environment's registry (GET /v1/environments lists them). */
      rubric: NameSchema(),
      /** Only these episodes; without it every retained one, oldest first. */
      episodes: z
        .array(EpisodeNumber())
        .min(1)
        .max(RESCORE_EPISODES.max)
        .optional(),
      /** Episodes a page holds at most (20 by default). */
      limit: z.number().int().min(1).max(RESCORE_EPISODES.max).optional(),
      /** `next_cursor` of the previous page. */
      cursor: CursorSchema().optional()
    })
    .meta({
      id: "RescoreRequest",
      description:
        "The registered rubric to apply, by name, and which retained episodes."
    })
);
export type RescoreRequest = z.infer<ReturnType<typeof RescoreRequestSchema>>;

const RescoredSchema = lazy(() =>
  z.object({
    /** What the rubric adds: its weighted sum (the episode score for an episode rubric). */
    total: z.number(),
    /** Named as a step's `reward_components` names them (`episode.*` for an episode rubric). */
    components: RewardComponentsSchema(),
    /** Why nothing was scored, when nothing could be. */
    error: z.string().optional()
  })
);

export const RescoreResponseSchema = lazy(() =>
  z
    .object({
      rubric: NameSchema(),
      /** `step`: scored on every step; `episode`: on the step that ended the episode. */
      kind: z.enum(["step", "episode"]),
      episodes: z.array(
        z.object({
          episode: EpisodeNumber(),
          /** Whether its last step ended it; an episode rubric scores only ended ones. */
          ended: z.boolean(),
          steps: z.array(
            z.object({
              step: EpisodeNumber(),
              answered: z.object({
                reward: z.number(),
                done: z.boolean(),
                truncated: z.boolean(),
                reward_components: RewardComponentsSchema().optional()
              }),
              rescored: RescoredSchema().optional()
            })
          ),
          /** The sum of the answered rewards (the episode's return). */
          answered_return: z.number(),
          /** The sum of the rescored totals. */
          total: z.number()
        })
      ),
      /** Asked-for episodes the log no longer holds from their reset (or never had). */
      unavailable: z.array(EpisodeNumber()).optional(),
      /** Where the next page starts, when more retained episodes remain. */
      next_cursor: z.string().optional()
    })
    .meta({
      id: "RescoreResponse",
      description:
        "Per retained episode and step: what was answered at the time, and what the rubric scores now."
    })
);
export type RescoreResponse = z.infer<ReturnType<typeof RescoreResponseSchema>>;
