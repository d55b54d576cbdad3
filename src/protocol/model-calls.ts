/**
 * @module The model gateway's record (`GET /v1/sessions/:id/model/calls`):
 * every call a harness made through `…/model/v1/chat/completions`, with
 * the token ids and logprobs the upstream gave. Each record is compact: a
 * request that repeats the previous call's messages keeps only the new
 * ones, and a prompt that extends the previous call's tokens keeps only
 * its new tokens; `src/client/model-tokens.ts` rebuilds them whole.
 */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema, JsonValueSchema } from "./json-value";
import { integerString } from "./query";
import { maxBytesParam, truncatedSchema } from "./read-budget";
import { TimestampSchema } from "./session-status";

const Count = lazy(() => z.number().int().nonnegative());

export const ModelTokensSchema = lazy(() =>
  z.object({
    /**
     * How many leading prompt tokens are the `base` call's whole sequence
     * (its prompt, then its completion): 0 when the prompt does not extend
     * it, the break a trainer must know about.
     */
    prompt_from: Count(),
    /** The prompt's tokens from `prompt_from` on. */
    prompt: z.array(z.number().int()),
    /** The tokens the model sampled. */
    completion: z.array(z.number().int()),
    /** Each sampled token's logprob, where the upstream gave one. */
    logprobs: z.array(z.number().nullable()).optional()
  })
);
export type ModelTokens = z.infer<ReturnType<typeof ModelTokensSchema>>;

export const ModelCallSchema = lazy(() =>
  z
    .object({
      /** 1-based within its episode. */
      call: z.number().int().positive(),
      episode: z.number().int().positive(),
      /** Steps the episode had committed when the call ended: it came before step `step + 1`. */
      step: Count(),
      at: TimestampSchema(),
      /** The call's wall time through the gateway, upstream included. */
      ms: Count(),
      /** The call whose messages and tokens this one's `messages_from` and `prompt_from` count from. */
      base: z.number().int().positive().optional(),
      request: z.object({
        /** Everything the harness sent but `messages`. */
        params: JsonObjectSchema(),
        /** How many leading messages are the `base` call's request messages, left out here. */
        messages_from: Count(),
        messages: z.array(JsonValueSchema())
      }),
      /** The upstream's HTTP status, or the gateway's own when the upstream never answered. */
      status: z.number().int(),
      /** The answer as the harness read it, token fields aside (streamed answers assembled). */
      response: JsonObjectSchema().optional(),
      error: z.object({ message: z.string(), type: z.string() }).optional(),
      /** Only a call that succeeded (2xx) has them: a failed one's partial answer is never trained on. */
      tokens: ModelTokensSchema().optional(),
      /** What was left out to keep the record under a stored row's 1.9 MB. */
      omitted: z.array(z.string()).optional()
    })
    .meta({
      id: "ModelCall",
      description:
        "One call through the session's model gateway, as recorded once it ended."
    })
);
export type ModelCall = z.infer<ReturnType<typeof ModelCallSchema>>;

export const ModelCallsQuerySchema = lazy(() =>
  z.object({
    /** The episode whose calls to read (the current one when absent). */
    episode: integerString({ min: 1, max: Number.MAX_SAFE_INTEGER }).optional(),
    /** Calls after this one (`next_after` of the previous page). */
    after: integerString({ min: 0, max: Number.MAX_SAFE_INTEGER }).optional(),
    limit: integerString({ min: 1, max: 1000, default: 100 }),
    max_bytes: maxBytesParam()
  })
);

export const ModelCallsResponseSchema = lazy(() =>
  z
    .object({
      episode: Count(),
      calls: z.array(ModelCallSchema()),
      /** Pass as `after` for the next page; absent on the last. */
      next_after: z.number().int().positive().optional(),
      truncated: truncatedSchema()
    })
    .meta({
      id: "ModelCallsResponse",
      description: "An episode's model calls, oldest first."
    })
);
export type ModelCallsResponse = z.infer<
  ReturnType<typeof ModelCallsResponseSchema>
>;
