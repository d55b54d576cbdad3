/** @module `GET /v1/environments`: the environments sessions can be created from. */

import * as z from "zod";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";
import { OpenAIToolSchema } from "./openai-tool";

export const EnvironmentInfoSchema = z
  .object({
    name: NameSchema,
    description: z.string(),
    /** JSON Schema of the task. */
    task_schema: JsonObjectSchema,
    /** JSON Schema of the typed state. */
    state_schema: JsonObjectSchema,
    tools: z.array(OpenAIToolSchema),
    dataset_size: z.number().int().nonnegative().optional(),
    max_steps: z.number().int().positive().optional()
  })
  .meta({ id: "EnvironmentInfo", description: "A registered environment." });
export type EnvironmentInfo = z.infer<typeof EnvironmentInfoSchema>;

export const EnvironmentsResponseSchema = z
  .object({ environments: z.array(EnvironmentInfoSchema) })
  .meta({
    id: "EnvironmentsResponse",
    description: "Every registered environment."
  });
export type EnvironmentsResponse = z.infer<typeof EnvironmentsResponseSchema>;

export const EnvironmentParamsSchema = z.object({ name: NameSchema });
export type EnvironmentParams = z.infer<typeof EnvironmentParamsSchema>;
