/** @module Typed state, transcript and frame reads, and state edits. */

import * as z from "zod";
import { JsonObjectSchema, JsonValueSchema } from "./json-value";
import { WireMessageSchema } from "./messages";
import { CursorSchema, pageLimit } from "./query";

/** State values by key, `messages` excluded (it is paged from `/messages`). */
export const StateValuesSchema = z
  .record(z.string(), JsonValueSchema)
  .meta({ id: "StateValues", description: "State values by key." });

export const StateResponseSchema = z
  .object({ state: StateValuesSchema })
  .meta({ id: "StateResponse", description: "The session's typed state." });
export type StateResponse = z.infer<typeof StateResponseSchema>;

export const StateHandlerNameSchema = z.enum(["replace", "merge_lists"]);
export type StateHandlerName = z.infer<typeof StateHandlerNameSchema>;

export const StatePatchRequestSchema = z
  .strictObject({
    key: z.string().min(1).max(256),
    /** Required: `undefined` is not JSON; send `null` to store null. */
    value: JsonValueSchema,
    /** Overrides the key's handler for this write. */
    handler: StateHandlerNameSchema.optional()
  })
  .meta({ id: "StatePatchRequest", description: "Merges one state value." });
export type StatePatchRequest = z.infer<typeof StatePatchRequestSchema>;

export const StatePatchResponseSchema = z
  .object({ key: z.string(), value: JsonValueSchema })
  .meta({
    id: "StatePatchResponse",
    description: "The key's value after the merge."
  });
export type StatePatchResponse = z.infer<typeof StatePatchResponseSchema>;

export const MessagesQuerySchema = z.object({
  cursor: CursorSchema.optional(),
  limit: pageLimit()
});
export type MessagesQuery = z.infer<typeof MessagesQuerySchema>;

export const MessagesResponseSchema = z
  .object({
    messages: z.array(WireMessageSchema),
    next_cursor: CursorSchema.optional()
  })
  .meta({
    id: "MessagesResponse",
    description: "A page of the transcript, oldest first."
  });
export type MessagesResponse = z.infer<typeof MessagesResponseSchema>;

export const FrameResponseSchema = z
  .object({
    /** The environment's `frame()` snapshot for viewers. */
    state: JsonValueSchema,
    info: JsonObjectSchema
  })
  .meta({ id: "FrameResponse", description: "A snapshot for viewers." });
export type FrameResponse = z.infer<typeof FrameResponseSchema>;
