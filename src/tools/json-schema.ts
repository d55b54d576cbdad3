/** @module The JSON schema a model sees for a tool, derived from its zod input. */

import * as z from "zod";
import type { JsonObject } from "../json";
import type { ToolInput } from "./define-tool";

/** A tool in OpenAI's function-calling format. */
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

/**
 * Parameters filled from state (`inputsFromState`) are left out: the model
 * should not be asked for what the runtime supplies.
 */
export const parametersSchema = (
  input: ToolInput,
  hidden: readonly string[] = []
): JsonObject => {
  const mask = Object.fromEntries(
    hidden.filter((p) => p in input.shape).map((p) => [p, true as const])
  );
  const visible = hidden.length > 0 ? input.omit(mask as never) : input;
  const { $schema: _drop, ...schema } = z.toJSONSchema(visible, {
    io: "input",
    unrepresentable: "any"
  }) as JsonObject;
  // Some providers reject an object schema without `required`.
  return { ...schema, required: schema.required ?? [] };
};

export const openAITool = (
  name: string,
  description: string,
  input: ToolInput,
  hidden: readonly string[] = []
): OpenAITool => ({
  type: "function",
  function: { name, description, parameters: parametersSchema(input, hidden) }
});
