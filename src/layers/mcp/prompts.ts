/**
 * @module MCP's prompts: those an environment declares (`mcp.prompts`),
 * and two every environment has unless it names its own so:
 * `instructions` (its description) and, in a session, `task` (the running
 * episode's opening messages, exactly as the model saw them).
 */

import * as z from "zod";
import type {
  PromptDefinition,
  PromptMessage
} from "../../environment/mcp-offer";
import type { JsonObject } from "../../json";
import { lazy } from "../../lazy";
import { InputRequired } from "../../tools/ask";
import type { Exchange } from "./exchange";
import { authorFailed, invalidParams, parseParams } from "./failure";
import {
  inputRequiredResult,
  isMissingCapability,
  missingCapability,
  offerClient,
  resumed
} from "./input-required";
import type { McpTarget } from "./target";
import { mcpContent } from "./tool-result";

const BUILT_IN: Record<string, PromptDefinition> = {
  instructions: {
    title: "Instructions",
    description: "What this environment is and how its tools are used.",
    messages: () => [] // filled from the environment (below)
  },
  task: {
    title: "Task",
    description:
      "The running episode's opening messages: the task exactly as the model saw it.",
    messages: () => []
  }
};

const GetParamsSchema = lazy(() =>
  z.object({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.string()).optional()
  })
);

/** The prompts of the target: the environment's own over the built-in ones. */
const promptsOf = async (
  target: McpTarget
): Promise<Record<string, PromptDefinition>> => {
  const environment = await target.environment();
  return { ...BUILT_IN, ...environment.mcp?.prompts };
};

/** A prompt's arguments as MCP lists them, from its zod object. */
const argumentsOf = (prompt: PromptDefinition) => {
  if (prompt.arguments === undefined) return undefined;
  const schema = z.toJSONSchema(prompt.arguments, { io: "input" }) as {
    properties?: Record<string, { description?: string }>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, p]) => ({
    name,
    ...(p.description === undefined ? {} : { description: p.description }),
    required: schema.required?.includes(name) ?? false
  }));
};

export const listPrompts = async (target: McpTarget) => {
  const prompts = await promptsOf(target);
  const inSession = (await target.openingMessages()) !== undefined;
  return {
    prompts: Object.entries(prompts)
      .filter(
        ([name, p]) => name !== "task" || p !== BUILT_IN.task || inSession
      )
      .map(([name, p]) => {
        const args = argumentsOf(p);
        return {
          name,
          ...(p.title === undefined ? {} : { title: p.title }),
          ...(p.description === undefined
            ? {}
            : { description: p.description }),
          ...(args === undefined ? {} : { arguments: args })
        };
      })
  };
};

/** MCP's prompt messages carry one content each: a message of parts becomes one per part. */
const mcpMessages = (messages: readonly PromptMessage[]) =>
  messages.flatMap((m) =>
    mcpContent(m.content).map((content) => ({ role: m.role, content }))
  );

const builtIn = async (
  target: McpTarget,
  name: string
): Promise<PromptMessage[]> => {
  if (name === "instructions") {
    return [
      { role: "user", content: (await target.environment()).description }
    ];
  }
  const opening = await target.openingMessages();
  if (opening === undefined) {
    throw invalidParams(
      "Prompt task is a session's: get it from the session's endpoint (or a session this endpoint started)."
    );
  }
  // The system prompt and the task, as a user reads them.
  return opening.flatMap((m) =>
    m.role === "system" || m.role === "user"
      ? [{ role: "user" as const, content: m.content }]
      : []
  );
};

export const getPrompt = async (
  target: McpTarget,
  params: unknown,
  exchange: Exchange
) => {
  const { name, arguments: given = {} } = parseParams(
    GetParamsSchema(),
    params
  );
  const prompts = await promptsOf(target);
  const prompt = Object.hasOwn(prompts, name) ? prompts[name] : undefined;
  if (prompt === undefined) {
    throw invalidParams(
      `Unknown prompt: ${name}. Prompts: ${Object.keys(prompts).join(", ")}.`
    );
  }
  if (prompt === BUILT_IN[name]) {
    return {
      description: prompt.description,
      messages: mcpMessages(await builtIn(target, name))
    };
  }
  let args: JsonObject = given;
  if (prompt.arguments !== undefined) {
    const parsed = prompt.arguments.safeParse(given);
    if (!parsed.success) {
      throw invalidParams(
        `Invalid arguments for prompt ${name}: ${z.prettifyError(parsed.error)}`
      );
    }
    args = parsed.data as JsonObject;
  }
  const call = { method: "prompts/get", name };
  const { answers } = await resumed(exchange, params, call);
  const client = offerClient(exchange, answers);
  try {
    const messages = await prompt.messages(
      args,
      client === undefined ? {} : { client }
    );
    return {
      ...(prompt.description === undefined
        ? {}
        : { description: prompt.description }),
      messages: mcpMessages(messages)
    };
  } catch (error) {
    if (error instanceof InputRequired) {
      return await inputRequiredResult(exchange, error, call, answers);
    }
    if (isMissingCapability(error)) throw missingCapability(error);
    throw authorFailed(`Prompt ${name}`, error);
  }
};
