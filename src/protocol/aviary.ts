/**
 * @module Aviary's dataset-server protocol (`TaskDatasetClient`), as its
 * client sends and validates it: `/info`, `/start`, `/reset`, `/step`,
 * `/close`, `/close_old_envs`.
 */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema, JsonValueSchema } from "./json-value";

/** `env_id`: the session and its credential, `<session_id>.<token>`. */
export const AviaryEnvIdSchema = lazy(() => z.string().min(1).max(1024));

export const AviaryStartRequestSchema = lazy(() =>
  z
    .object({
      /** The client sends `null` for "any task": the environment's default. */
      task_idx: z.number().int().nonnegative().nullable().optional(),
      task_kwargs: JsonObjectSchema().nullable().optional()
    })
    .refine((b) => b.task_idx == null || b.task_kwargs == null, {
      message: "task_idx and task_kwargs are mutually exclusive.",
      path: ["task_kwargs"]
    })
    .meta({
      id: "AviaryStartRequest",
      description: "Starts an environment: a dataset index or task arguments."
    })
);

export const AviaryEnvRequestSchema = lazy(() =>
  z.object({ env_id: AviaryEnvIdSchema() }).meta({ id: "AviaryEnvRequest" })
);

const AviaryToolCallSchema = lazy(() =>
  z.object({
    id: z.string().min(1).max(256),
    type: z.literal("function").optional(),
    function: z.object({
      name: z.string().max(256),
      // ToolCallFunction serialises its arguments with json.dumps; `null` or
      // "" mean none.
      arguments: z.union([z.string(), JsonObjectSchema()]).nullable().optional()
    })
  })
);

/** Any Aviary `Message` (a ToolRequestMessage when it calls tools); extra keys are ignored, as Aviary does. */
export const AviaryMessageSchema = lazy(() =>
  z.looseObject({
    role: z
      .enum(["user", "system", "tool", "assistant", "function"])
      .default("assistant"),
    content: z
      .union([z.string(), z.array(JsonValueSchema())])
      .nullable()
      .optional(),
    tool_calls: z.array(AviaryToolCallSchema()).optional(),
    name: z.string().optional(),
    tool_call_id: z.string().optional()
  })
);
export type AviaryMessage = z.infer<ReturnType<typeof AviaryMessageSchema>>;

export const AviaryStepRequestSchema = lazy(() =>
  z
    .object({ env_id: AviaryEnvIdSchema(), action: AviaryMessageSchema() })
    .meta({ id: "AviaryStepRequest" })
);

export const AviaryFlushRequestSchema = lazy(() =>
  z
    .object({
      /** Idle seconds, as Aviary's server reads it. */
      last_used: z.number().nonnegative().default(3600)
    })
    .meta({ id: "AviaryFlushRequest" })
);

/** A message as Aviary's MessagesAdapter reads it: a tool message needs its name, id and string content. */
export const AviaryOutMessageSchema = lazy(() =>
  z.object({
    role: z.enum(["user", "system", "tool", "assistant"]),
    content: z.string().nullable(),
    name: z.string().optional(),
    tool_call_id: z.string().optional(),
    tool_calls: z.array(z.looseObject({})).optional(),
    /** Set when `content` holds JSON (multimodal parts), as Aviary marks it. */
    content_is_json_str: z.literal(true).optional(),
    info: JsonObjectSchema().nullable()
  })
);
export type AviaryOutMessage = z.infer<
  ReturnType<typeof AviaryOutMessageSchema>
>;

/** A tool as Aviary's ToolsAdapter reads it: `parameters` with `properties` and `required`, always present. */
export const AviaryToolSchema = lazy(() =>
  z.object({
    type: z.literal("function"),
    function: z.object({
      name: z.string(),
      description: z.string(),
      parameters: z.looseObject({
        type: z.literal("object"),
        properties: JsonObjectSchema(),
        required: z.array(z.string())
      })
    })
  })
);
export type AviaryTool = z.infer<ReturnType<typeof AviaryToolSchema>>;

export const AviaryInfoResponseSchema = lazy(() =>
  z
    .object({
      /** `null` when the environment has no dataset: the client then asks for tasks forever. */
      dataset_size: z.number().int().nonnegative().nullable(),
      /** Roost keeps no list of sessions; each is deleted by its own idle timer. */
      running_env_ids: z.array(z.string()),
      environment: z.string(),
      description: z.string()
    })
    .meta({ id: "AviaryInfoResponse" })
);

export const AviaryStartResponseSchema = lazy(() =>
  z.object({ env_id: z.string() }).meta({ id: "AviaryStartResponse" })
);

export const AviaryResetResponseSchema = lazy(() =>
  z
    .tuple([z.array(AviaryOutMessageSchema()), z.array(AviaryToolSchema())])
    .meta({ id: "AviaryResetResponse", description: "[messages, tools]" })
);
export type AviaryResetResponse = z.infer<
  ReturnType<typeof AviaryResetResponseSchema>
>;

export const AviaryStepResponseSchema = lazy(() =>
  z
    .tuple([
      z.array(AviaryOutMessageSchema()),
      z.number(),
      z.boolean(),
      z.boolean()
    ])
    .meta({
      id: "AviaryStepResponse",
      description: "[messages, reward, done, truncated]"
    })
);
export type AviaryStepResponse = z.infer<
  ReturnType<typeof AviaryStepResponseSchema>
>;

export const AviaryFlushResponseSchema = lazy(() =>
  z
    .object({ closed_env_ids: z.array(z.string()) })
    .meta({ id: "AviaryFlushResponse" })
);
