/** @module Aviary's messages and tools to and from Roost's: the whole of the Aviary transport that is not routing. */

import type { JsonObject } from "../../json";
import { withStringArguments } from "../../messages/build";
import type { Content, Message } from "../../messages/schema";
import { ContentSchema } from "../../messages/schema";
import type {
  Action,
  AviaryMessage,
  AviaryOutMessage,
  AviaryTool,
  OpenAITool,
  RewardComponents
} from "../../protocol";

/**
 * An Aviary action as a Roost step. A ToolRequestMessage keeps its calls
 * (arguments arrive as the JSON string `json.dumps` wrote); any other
 * message calls no tool, which both Aviary and Roost answer with the same
 * "No tool calls received" observation.
 */
export const toAction = (message: AviaryMessage): Action => {
  if (message.role !== "assistant")
    return { role: "assistant", content: null, tool_calls: [] };
  const content = ContentSchema().safeParse(message.content);
  return {
    role: "assistant",
    content: content.success
      ? content.data
      : message.content == null
        ? null
        : JSON.stringify(message.content),
    tool_calls: (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      type: "function",
      function: {
        name: call.function.name,
        arguments:
          call.function.arguments == null || call.function.arguments === ""
            ? "{}"
            : call.function.arguments
      }
    }))
  };
};

/** Text stays text; multimodal parts travel as JSON, marked as Aviary marks them. */
const content = (
  value: Content | null | undefined
): Pick<AviaryOutMessage, "content" | "content_is_json_str"> =>
  value == null || typeof value === "string"
    ? { content: value ?? null }
    : { content: JSON.stringify(value), content_is_json_str: true };

/**
 * Roost's observations as Aviary's MessagesAdapter validates them: every
 * message has its role and `info`; a tool message its name, call id and
 * string content (without them Aviary reads it as a plain message).
 */
export const toAviaryMessages = (messages: Message[]): AviaryOutMessage[] =>
  messages.map((m) => {
    switch (m.role) {
      case "tool":
        return {
          role: "tool",
          ...content(m.content),
          name: m.name,
          tool_call_id: m.tool_call_id,
          info: m.is_error ? { is_error: true } : null
        };
      case "assistant":
        return {
          role: "assistant",
          ...content(m.content),
          ...(m.tool_calls
            ? {
                tool_calls: withStringArguments(m.tool_calls)
              }
            : {}),
          info: null
        };
      default:
        return { role: m.role, ...content(m.content), info: null };
    }
  });

/** Aviary requires `parameters` with `properties` and `required`, even for a tool without arguments. */
export const toAviaryTools = (tools: OpenAITool[]): AviaryTool[] =>
  tools.map(({ function: f }) => ({
    type: "function",
    function: {
      name: f.name,
      description: f.description,
      parameters: {
        ...f.parameters,
        type: "object",
        properties:
          (f.parameters
            .properties as AviaryTool["function"]["parameters"]["properties"]) ??
          {},
        required: Array.isArray(f.parameters.required)
          ? (f.parameters.required as string[])
          : []
      }
    }
  }));

/**
 * A step's reward components where Aviary's client can carry them: the
 * `info` of the step's last message. Its step answer is a list the client
 * unpacks into exactly four (`messages, reward, done, truncated =
 * response.json()`), so a fifth element would raise there; `info` is a
 * dict every Aviary Message keeps when MessagesAdapter validates it (its
 * own servers put `start_ts`/`end_ts` there), so a Python caller reads
 * `messages[-1].info["reward_components"]`. A tool message's `is_error`
 * stays beside it. A step that observed nothing has no message to carry
 * them; Roost's own step answer and `step` event still do.
 */
export const withRewardComponents = (
  messages: AviaryOutMessage[],
  components: RewardComponents | undefined
): AviaryOutMessage[] => {
  const last = messages.at(-1);
  if (components === undefined || last === undefined) return messages;
  return [
    ...messages.slice(0, -1),
    {
      ...last,
      info: { ...last.info, reward_components: components as JsonObject }
    }
  ];
};
