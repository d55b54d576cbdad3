/** @module Roost's answers in OpenEnv's shapes: observation, state and error frames, tool lists and tool errors. */

import * as z from "zod";
import type { Environment } from "../../environment/define-environment";
import type { JsonObject } from "../../json";
import { contentText } from "../../messages/build";
import type { Message } from "../../messages/schema";
import {
  OPENENV_TOOL_ERROR_TYPES,
  type OpenAITool,
  type OpenEnvErrorCode,
  type OpenEnvObservationFrame,
  OpenEnvStateSchema,
  type OpenEnvToolErrorType,
  type StepResponse
} from "../../protocol";

export const errorFrame = (
  code: OpenEnvErrorCode,
  message: string,
  extra: JsonObject = {}
) => ({ type: "error" as const, data: { message, code, ...extra } });

/**
 * `done` covers truncation: OpenEnv has one flag for "the episode is over".
 *
 * `metadata` is OpenEnv's `Observation.metadata`, and it goes in two
 * places. Inside the observation is where OpenEnv's released clients read
 * it (MCPClientBase._parse_result: `obs_data.get("metadata", {})`;
 * GenericEnvClient hands the observation over as a dict), since OpenEnv's
 * own serializer drops it. Beside `reward` is where OpenEnv's proposed fix
 * to that serializer (huggingface/OpenEnv#617) promotes it and where its
 * clients then read it, into `StepResult.metadata` too. Every client
 * ignores keys it does not read, so both kinds find it and neither breaks.
 */
export const observationFrame = (
  observation: JsonObject,
  reward: number | null,
  done: boolean,
  metadata?: JsonObject
): OpenEnvObservationFrame => ({
  type: "observation",
  data:
    metadata === undefined
      ? { observation, reward, done }
      : { observation: { ...observation, metadata }, reward, done, metadata }
});

/**
 * A scored step's metadata: its `reward_components` under Roost's own name.
 * OpenEnv has no wire key for them (RFC 004's rubrics are read in-process,
 * through `named_rubrics()` and `last_score`), so the name and shape are
 * those of Roost's step answer and `step` event. Undefined for a step of
 * an environment without rubrics, whose observations stay as they were.
 */
export const stepMetadata = (step: StepResponse): JsonObject | undefined =>
  step.reward_components === undefined
    ? undefined
    : { reward_components: step.reward_components as JsonObject };

/**
 * Which of OpenEnv's error types a failed tool message is. The texts are
 * Roost's own (tools/execute.ts, tools/arguments.ts), and a test pins each
 * kind, so a reworded message fails there rather than here.
 */
export const toolErrorType = (text: string): OpenEnvToolErrorType =>
  text.startsWith("Invalid tool call:")
    ? "tool_not_found"
    : text.startsWith("Invalid arguments for ")
      ? "invalid_args"
      : /^Tool \S+ failed: Tool \S+ timed out after \d+ ms\.$/.test(text)
        ? "timeout"
        : "execution_error";

/** OpenEnv's Tool: name, a description that is never null, input_schema. */
export const openEnvTools = (tools: readonly OpenAITool[]) =>
  tools.map((t) => ({
    name: t.function.name,
    description: t.function.description ?? "",
    input_schema: t.function.parameters
  }));

/**
 * A `call_tool` step as OpenEnv's CallToolObservation: the result wrapped
 * as `{data}` (what MCPToolClient.call_tool returns), or an error of one of
 * its five types (which it raises). Roost's messages ride along.
 */
export const callToolObservation = (
  tool: string,
  callId: string,
  step: StepResponse
): JsonObject => {
  const message = step.observations.find(
    (m): m is Extract<Message, { role: "tool" }> =>
      m.role === "tool" && m.tool_call_id === callId
  );
  const text = message ? contentText(message.content) : "";
  const failed = message?.is_error === true;
  return {
    tool_name: tool,
    result: failed
      ? null
      : { data: text, content: (message?.content ?? "") as JsonObject[string] },
    error: failed ? { error_type: toolErrorType(text), message: text } : null,
    messages: step.observations as unknown as JsonObject[],
    truncated: step.truncated
  };
};

/** The JSON Schemas `GET …/schema` serves, from the environment's tools. */
export const openEnvSchemas = (environment: Environment) => {
  const callTool = {
    type: "object",
    title: "CallToolAction",
    properties: {
      type: { const: "call_tool", default: "call_tool" },
      tool_name: { enum: environment.toolSchemas.map((t) => t.function.name) },
      arguments: { type: "object", default: {} }
    },
    required: ["tool_name"]
  };
  const listTools = {
    type: "object",
    title: "ListToolsAction",
    properties: { type: { const: "list_tools", default: "list_tools" } }
  };
  const message = {
    type: "object",
    title: "AssistantMessage",
    description:
      "Roost's own step: an OpenAI-style assistant message whose tool_calls run in one step.",
    properties: {
      role: { const: "assistant" },
      content: { anyOf: [{ type: "string" }, { type: "null" }] },
      tool_calls: { type: "array" }
    },
    required: ["tool_calls"]
  };
  const observation = {
    type: "object",
    title: "RoostObservation",
    properties: {
      messages: {
        type: "array",
        description: "The step's observations as Roost's messages."
      },
      tool_name: { type: "string" },
      result: {},
      error: {
        anyOf: [
          {
            type: "object",
            properties: {
              error_type: { enum: [...OPENENV_TOOL_ERROR_TYPES] },
              message: { type: "string" }
            },
            required: ["error_type", "message"]
          },
          { type: "null" }
        ]
      },
      tools: { type: "array" },
      truncated: { type: "boolean" },
      metadata: {
        type: "object",
        description:
          "Reset: session_id, episode, episode_id. A step of an environment with rubrics: reward_components, what each component scored, by name."
      }
    }
  };
  // From the zod schema the state frames are built against, with the
  // environment's own state definition under `values`.
  const base = z.toJSONSchema(OpenEnvStateSchema()) as {
    properties: Record<string, unknown>;
  };
  const state = {
    ...base,
    title: "State",
    properties: {
      ...base.properties,
      values: {
        type: "object",
        description: "The session's typed state (the transcript aside).",
        properties: environment.state.jsonSchema()
      }
    }
  };
  return {
    action: { anyOf: [callTool, listTools, message] },
    observation,
    state
  };
};

/** A zod failure as OpenEnv's VALIDATION_ERROR lists it (pydantic's `errors()`, in short). */
export const validationErrors = (error: z.ZodError): JsonObject[] =>
  error.issues.map((issue) => ({
    type: issue.code,
    loc: issue.path.map((p) => (typeof p === "number" ? p : String(p))),
    msg: issue.message
  }));
