/** @module Direct tool invocation: `POST /v1/sessions/:id/tools/:tool`. */

import * as z from "zod";
import { lazy } from "../lazy";
import { ContentSchema } from "../messages/schema";
import { LocatedEntrySchema } from "./entries";
import { SessionIdSchema } from "./http-sessions";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";

export const ToolParamsSchema = lazy(() =>
  z.object({
    id: SessionIdSchema(),
    tool: NameSchema()
  })
);
export type ToolParams = z.infer<ReturnType<typeof ToolParamsSchema>>;

export const ToolInvocationRequestSchema = lazy(() =>
  z.strictObject({ arguments: JsonObjectSchema().default({}) }).meta({
    id: "ToolInvocationRequest",
    description: "Arguments of one direct tool call."
  })
);
export type ToolInvocationRequest = z.infer<
  ReturnType<typeof ToolInvocationRequestSchema>
>;

export const ToolInvocationResponseSchema = lazy(() =>
  z
    .object({
      /** The tool message content the model would have read. */
      content: ContentSchema(),
      is_error: z.boolean(),
      /** Entries the call stored, in the order it yielded them. */
      results: z.array(LocatedEntrySchema())
    })
    .meta({
      id: "ToolInvocationResponse",
      description: "What a direct tool call returned and stored."
    })
);
export type ToolInvocationResponse = z.infer<
  ReturnType<typeof ToolInvocationResponseSchema>
>;
