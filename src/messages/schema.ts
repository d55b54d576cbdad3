/** @module Chat messages and tool calls in OpenAI's format, as zod schemas. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema } from "../protocol/json-value";

export const TextPartSchema = lazy(() =>
  z.object({
    type: z.literal("text"),
    text: z.string()
  })
);

export const ImagePartSchema = lazy(() =>
  z.object({
    type: z.literal("image_url"),
    image_url: z.object({
      url: z.string(),
      detail: z.enum(["auto", "low", "high"]).optional()
    })
  })
);

/** Audio as OpenAI's chat format carries it: base64 data and its format (`wav`, `mp3`). */
export const AudioPartSchema = lazy(() =>
  z.object({
    type: z.literal("input_audio"),
    input_audio: z.object({
      data: z.string(),
      format: z.string().regex(/^[a-z0-9.+-]{1,32}$/)
    })
  })
);

/**
 * A document embedded whole, as MCP embeds a resource: its URI, its media
 * type, and its text or base64 `blob`. OpenAI's format has no such part; a
 * harness that sends the transcript to a model renders it as it sees fit.
 */
export const ResourcePartSchema = lazy(() =>
  z.object({
    type: z.literal("resource"),
    resource: z.union([
      z.object({
        uri: z.string().min(1),
        mimeType: z.string().optional(),
        text: z.string()
      }),
      z.object({
        uri: z.string().min(1),
        mimeType: z.string().optional(),
        blob: z.string()
      })
    ])
  })
);

export const ContentPartSchema = lazy(() =>
  z.discriminatedUnion("type", [
    TextPartSchema(),
    ImagePartSchema(),
    AudioPartSchema(),
    ResourcePartSchema()
  ])
);
export type ContentPart = z.infer<ReturnType<typeof ContentPartSchema>>;

/** Message content: plain text or multimodal parts. */
export const ContentSchema = lazy(() =>
  z.union([z.string(), z.array(ContentPartSchema())])
);
export type Content = z.infer<ReturnType<typeof ContentSchema>>;

/**
 * A tool call. `arguments` is accepted as a JSON string (OpenAI's wire form)
 * or an object; parsing it is left to execution, so a malformed string
 * becomes an error tool message the model can read rather than a rejected request.
 */
export const ToolCallSchema = lazy(() =>
  z.object({
    id: z.string().min(1).max(256),
    type: z.literal("function").default("function"),
    function: z.object({
      name: z.string().max(256),
      arguments: z
        // JsonObjectSchema keeps a `__proto__` key as data (z.record drops
        // it); typed as the record it checks, so callers keep their types.
        .union([
          z.string(),
          JsonObjectSchema() as unknown as z.ZodType<Record<string, unknown>>
        ])
        .default("{}")
    })
  })
);
export type ToolCall = z.infer<ReturnType<typeof ToolCallSchema>>;
export type ToolCallInput = z.input<ReturnType<typeof ToolCallSchema>>;

/**
 * Roost's addition, in a multi-agent episode only: the agent whose view
 * the message is in. A message without one is every agent's.
 */
const AgentSchema = lazy(() => z.string().max(64).optional());

export const SystemMessageSchema = lazy(() =>
  z.object({
    role: z.literal("system"),
    content: ContentSchema(),
    agent: AgentSchema()
  })
);

export const UserMessageSchema = lazy(() =>
  z.object({
    role: z.literal("user"),
    content: ContentSchema(),
    agent: AgentSchema()
  })
);

export const AssistantMessageSchema = lazy(() =>
  z.object({
    role: z.literal("assistant"),
    content: ContentSchema().nullable().optional(),
    tool_calls: z.array(ToolCallSchema()).optional(),
    agent: AgentSchema()
  })
);
export type AssistantMessage = z.infer<
  ReturnType<typeof AssistantMessageSchema>
>;

export const ToolMessageSchema = lazy(() =>
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string(),
    name: z.string(),
    content: ContentSchema(),
    /** Roost's addition: the call failed (bad arguments, exception, timeout, unknown tool). */
    is_error: z.boolean().optional(),
    agent: AgentSchema()
  })
);
export type ToolMessage = z.infer<ReturnType<typeof ToolMessageSchema>>;

export const MessageSchema = lazy(() =>
  z.discriminatedUnion("role", [
    SystemMessageSchema(),
    UserMessageSchema(),
    AssistantMessageSchema(),
    ToolMessageSchema()
  ])
);
export type Message = z.infer<ReturnType<typeof MessageSchema>>;
export type MessageInput = z.input<ReturnType<typeof MessageSchema>>;
