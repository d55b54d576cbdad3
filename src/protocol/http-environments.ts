/** @module `GET /v1/environments`: the environments sessions can be created from. */

import * as z from "zod";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";
import { OpenAIToolSchema } from "./openai-tool";

/** One named split: its size, or that it is generated (any index is a seed). */
export const SplitInfoSchema = z
  .object({
    name: NameSchema,
    /** Tasks in the split; absent when it is generated. */
    size: z.number().int().nonnegative().optional(),
    /** True when the split has no size: every task_index ≥ 0 is a seed. */
    generated: z.boolean()
  })
  .meta({ id: "SplitInfo", description: "A named dataset split." });
export type SplitInfo = z.infer<typeof SplitInfoSchema>;

export const EnvironmentInfoSchema = z
  .object({
    name: NameSchema,
    description: z.string(),
    /** JSON Schema of the task. */
    task_schema: JsonObjectSchema,
    /** JSON Schema of the typed state. */
    state_schema: JsonObjectSchema,
    tools: z.array(OpenAIToolSchema),
    /** Size of the default dataset (task_index without a split). */
    dataset_size: z.number().int().nonnegative().optional(),
    /** True when the default dataset is generated (it has no size). */
    dataset_generated: z.boolean().optional(),
    /** Named splits, picked by task_index + split. */
    splits: z.array(SplitInfoSchema).optional(),
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
