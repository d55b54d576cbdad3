/** @module A tool as OpenAI's chat API lists it, which is how every client sees a session's tools. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";

export const OpenAIToolSchema = lazy(() =>
  z
    .object({
      type: z.literal("function"),
      function: z.object({
        name: NameSchema(),
        description: z.string(),
        /** The JSON Schema of the arguments, from the tool's zod input. */
        parameters: JsonObjectSchema()
      })
    })
    .meta({
      id: "OpenAITool",
      description: "A tool in OpenAI's function-calling format."
    })
);
export type OpenAITool = z.infer<ReturnType<typeof OpenAIToolSchema>>;
