/** @module The policies the validator plays: a seeded script, doing nothing, empty answers; each the same on every run. */

import { randomPolicy } from "../client/random-policy";
import type { OraclePolicy } from "../environment/validation";
import type { JsonValue } from "../json";
import type { ActionInput, OpenAITool } from "../protocol";

/** An answer with no tool call and no words. */
export const doNothing: OraclePolicy = () => ({
  role: "assistant",
  content: ""
});

/** The random policy, seeded: a scripted sequence of tool calls that is the same on every run. */
export const scripted = (seed: number): OraclePolicy => {
  const random = randomPolicy({ seed });
  return (observations, tools, history) =>
    tools.length === 0
      ? doNothing(observations, tools, history)
      : (random(observations, tools, history) as ActionInput);
};

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
}

/** The emptiest value of a schema's type: "", 0, false, [], {} with empty required fields. */
const empty = (schema: Schema): JsonValue => {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "string") return "";
  if (type === "number" || type === "integer") return 0;
  if (type === "boolean") return false;
  if (type === "array") return [];
  if (type === "null") return null;
  return Object.fromEntries(
    (schema.required ?? []).map((k) => [k, empty(schema.properties?.[k] ?? {})])
  );
};

/**
 * Calls the tools in turn, one a step, each with empty arguments: the
 * verifier that pays for an empty string is caught by this one.
 */
export const emptyAnswers: OraclePolicy = (_observations, tools, history) => {
  const steps = history.filter((m) => m.role === "assistant").length;
  const tool: OpenAITool | undefined = tools[steps % (tools.length || 1)];
  if (tool === undefined) return doNothing(_observations, tools, history);
  return {
    role: "assistant",
    tool_calls: [
      {
        id: `empty_${history.length}`,
        type: "function",
        function: {
          name: tool.function.name,
          arguments: empty(tool.function.parameters as Schema) as Record<
            string,
            JsonValue
          >
        }
      }
    ]
  };
};
