/** @module Transcript messages and actions as the wire carries them (the schemas live in messages/). */

import type * as z from "zod";
import { lazy } from "../lazy";
import { AssistantMessageSchema, MessageSchema } from "../messages/schema";

/** MessageSchema under a component name, so OpenAPI refers to it instead of inlining it. */
export const WireMessageSchema = lazy(() =>
  MessageSchema().meta({
    id: "Message",
    description: "A chat message in OpenAI's format."
  })
);

/**
 * An action: an assistant message with tool calls. `role` may be left out
 * (it can only be "assistant"), so `{ tool_calls: [...] }` is an action;
 * any other role is rejected. Unknown fields that models add to their
 * messages (`refusal`, `annotations`, …) are dropped, so a model's reply can
 * be passed straight through.
 */
export const ActionSchema = lazy(() =>
  AssistantMessageSchema()
    // Whose action it is, the step says (and, later, the token): an
    // action's own claim is dropped with the other unknown fields.
    .omit({ agent: true })
    .extend({
      role: AssistantMessageSchema().shape.role.default("assistant")
    })
    .meta({
      id: "Action",
      description:
        "An assistant message with tool_calls; role defaults to assistant."
    })
);
export type Action = z.infer<ReturnType<typeof ActionSchema>>;
export type ActionInput = z.input<ReturnType<typeof ActionSchema>>;
