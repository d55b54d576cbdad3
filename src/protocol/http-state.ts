/** @module Typed state, transcript and frame reads, and state edits. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema, JsonValueSchema } from "./json-value";
import { WireMessageSchema } from "./messages";
import { CursorSchema, pageLimit } from "./query";
import { maxBytesParam, truncatedSchema } from "./read-budget";

/** State values by key, `messages` excluded (it is paged from `/messages`). */
export const StateValuesSchema = lazy(() =>
  z
    .record(z.string(), JsonValueSchema())
    .meta({ id: "StateValues", description: "State values by key." })
);

/** `GET …/state?cursor=&max_bytes=`: values in the state's key order, a page at a time. */
export const StateQuerySchema = lazy(() =>
  z.object({
    cursor: CursorSchema().optional(),
    max_bytes: maxBytesParam()
  })
);
export type StateQuery = z.infer<ReturnType<typeof StateQuerySchema>>;

export const StateResponseSchema = lazy(() =>
  z
    .object({
      state: StateValuesSchema(),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema(),
      before_first_reset: z
        .literal(true)
        .optional()
        .describe(
          "Present before the session's first reset: no episode has begun, and `state` is what the first reset will start from (the defaults, with the state given at creation over them), before the environment's own reset runs."
        )
    })
    .meta({
      id: "StateResponse",
      description:
        "The session's typed state, or a page of its keys when it is larger than the budget."
    })
);
export type StateResponse = z.infer<ReturnType<typeof StateResponseSchema>>;

export const StateHandlerNameSchema = lazy(() =>
  z.enum(["replace", "merge_lists"])
);
export type StateHandlerName = z.infer<
  ReturnType<typeof StateHandlerNameSchema>
>;

export const StatePatchRequestSchema = lazy(() =>
  z
    .strictObject({
      key: z.string().min(1).max(256),
      /** Required: `undefined` is not JSON; send `null` to store null. */
      value: JsonValueSchema(),
      /** Overrides the key's handler for this write. */
      handler: StateHandlerNameSchema().optional()
    })
    .meta({ id: "StatePatchRequest", description: "Merges one state value." })
);
export type StatePatchRequest = z.infer<
  ReturnType<typeof StatePatchRequestSchema>
>;

export const StatePatchResponseSchema = lazy(() =>
  z.object({ key: z.string(), value: JsonValueSchema() }).meta({
    id: "StatePatchResponse",
    description: "The key's value after the merge."
  })
);
export type StatePatchResponse = z.infer<
  ReturnType<typeof StatePatchResponseSchema>
>;

export const MessagesQuerySchema = lazy(() =>
  z.object({
    cursor: CursorSchema().optional(),
    limit: pageLimit(),
    max_bytes: maxBytesParam()
  })
);
export type MessagesQuery = z.infer<ReturnType<typeof MessagesQuerySchema>>;

export const MessagesResponseSchema = lazy(() =>
  z
    .object({
      messages: z.array(WireMessageSchema()),
      /** Messages in the episode's transcript: a viewer can start from the newest without walking the rest. */
      total: z.number().int().nonnegative(),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema()
    })
    .meta({
      id: "MessagesResponse",
      description: "A page of the transcript, oldest first."
    })
);
export type MessagesResponse = z.infer<
  ReturnType<typeof MessagesResponseSchema>
>;

export const FrameQuerySchema = lazy(() =>
  z.object({ max_bytes: maxBytesParam() })
);

export const FrameResponseSchema = lazy(() =>
  z
    .object({
      /** The environment's `frame()` snapshot for viewers. */
      state: JsonValueSchema(),
      info: JsonObjectSchema(),
      truncated: truncatedSchema()
    })
    .meta({ id: "FrameResponse", description: "A snapshot for viewers." })
);
export type FrameResponse = z.infer<ReturnType<typeof FrameResponseSchema>>;
