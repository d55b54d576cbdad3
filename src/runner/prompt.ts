/** @module What a decision model is told and what it must answer, shared by every model adapter. */

import * as z from "zod";
import type { JsonObject } from "../json";
import { jsonInProse } from "../json-in-prose";
import { lazy } from "../lazy";
import {
  renderErrors,
  renderTasksCompleted,
  treeCount
} from "../tree/tree-data";
import type {
  Atlas,
  Decision,
  DecisionRequest,
  TextRequest,
  TreeData,
  TreeOption
} from "../tree/types";
import { ModelError } from "./model-error";
import { hasInputs } from "./options";

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** Name of the one function offered in tool-calling mode. */
export const DECIDE_TOOL = "decide";

/**
 * How the adapter collects the decision: as a call to `decide` (tools), or
 * as a bare JSON reply, where the schema has to be in the prompt because
 * nothing else carries it to the model.
 */
export type DecisionFormat = "tool" | "json";

/**
 * JSON schema of one decision, Elysia's output fields in its order. The
 * enum keeps constrained decoders on this node's options; the object is not
 * "strict" because `function_inputs` differs per option.
 */
export const decisionSchema = (options: TreeOption[]): JsonObject => ({
  type: "object",
  properties: {
    reasoning: {
      type: "string",
      description: "Brief thinking about which option moves towards the goal."
    },
    message_update: {
      type: "string",
      description:
        "One short sentence to the user about what you are doing now. Do not repeat earlier updates."
    },
    impossible: {
      type: "boolean",
      description:
        "True only if no option, now or later, can answer the user's prompt."
    },
    function_name: {
      type: "string",
      description: "The name of one available option.",
      ...(options.length > 0 ? { enum: options.map((o) => o.name) } : {})
    },
    function_inputs: {
      type: "object",
      description:
        "Inputs of the chosen option, following its input schema; {} if it needs none."
    },
    end_actions: {
      type: "boolean",
      description:
        "True if, after this option, the user's prompt will be fully answered."
    }
  },
  required: [
    "reasoning",
    "message_update",
    "impossible",
    "function_name",
    "function_inputs",
    "end_actions"
  ],
  additionalProperties: false
});

const section = (tag: string, body: string): string =>
  `<${tag}>\n${body.trim() === "" ? "None." : body.trim()}\n</${tag}>`;

const renderAtlas = (atlas: Atlas): string =>
  section(
    "atlas",
    [
      `Agent description: ${atlas.agentDescription}`,
      `Style: ${atlas.style}`,
      `End goal: ${atlas.endGoal}`
    ].join("\n")
  );

const renderHistory = (data: TreeData): string =>
  data.conversationHistory.map((m) => `${m.role}: ${m.content}`).join("\n\n");

const renderOptions = (options: TreeOption[]): string =>
  options.length === 0
    ? ""
    : JSON.stringify(
        options.map((o) => ({
          function_name: o.name,
          description: o.description,
          ...(o.kind === "branch"
            ? {
                kind: "branch: choosing it shows more options",
                leads_to: o.leadsTo ?? {}
              }
            : {}),
          inputs: hasInputs(o.inputs)
            ? o.inputs
            : "No inputs are needed for this function.",
          can_end: o.end
        })),
        null,
        2
      );

const renderUnavailable = (request: DecisionRequest): string =>
  request.unavailable.length === 0
    ? ""
    : JSON.stringify(
        request.unavailable.map((o) => ({
          function_name: o.name,
          description: o.description,
          available_when: o.reason
        })),
        null,
        2
      );

/** Tree data both prompts share, most stable first so servers can reuse a cached prefix. */
const contextSections = (data: TreeData): string[] => [
  section("user_prompt", data.userPrompt),
  section("conversation_history", renderHistory(data)),
  section("environment", data.environmentView),
  section("tasks_completed", renderTasksCompleted(data.tasksCompleted)),
  section("errors", renderErrors(data.errors))
];

const decisionGuide = (format: DecisionFormat, options: TreeOption[]) =>
  [
    "You are the decision agent of a tree of tools. At each step you choose exactly one option at the current node, with its inputs, to move towards answering the user's prompt. Other agents run the tools and write the final answer; you only choose.",
    "",
    "How to choose:",
    "- Pick function_name only from <available_options>. Options in <unavailable_options> cannot be picked now; their reason says when they can.",
    "- Fill function_inputs from the option's input schema, or {} when it needs none.",
    "- Look at <environment> and <tasks_completed> first: do not redo work whose results are already there.",
    "- If a tool is listed in <errors>, change its inputs or choose something else.",
    "- Follow <instruction>, which says how to choose at this node.",
    "- Set end_actions to true when the prompt will be fully answered after this option.",
    "- Set impossible to true only when no option could ever answer the prompt.",
    "- message_update is one sentence to the user; do not repeat earlier ones.",
    "",
    format === "tool"
      ? `Answer by calling the function ${DECIDE_TOOL} once.`
      : `Answer with only a JSON object, no other text, that follows this JSON schema:\n${JSON.stringify(decisionSchema(options))}`
  ].join("\n");

/**
 * Chat messages asking for one decision at a node. The atlas sits in the
 * system message because it is fixed for a tree; everything that changes
 * pass to pass goes in tagged sections of the user message.
 */
export const decisionMessages = (
  request: DecisionRequest,
  format: DecisionFormat = "json"
): ChatMessage[] => {
  const data = request.treeData;
  return [
    {
      role: "system",
      content: `${decisionGuide(format, request.options)}\n\n${renderAtlas(data.atlas)}`
    },
    {
      role: "user",
      content: [
        ...contextSections(data),
        section("tree_count", treeCount(data.pass, data.recursionLimit)),
        section("node", request.node),
        section("instruction", request.instruction),
        section("available_options", renderOptions(request.options)),
        section("unavailable_options", renderUnavailable(request)),
        section("feedback", request.feedback.map((f) => `- ${f}`).join("\n"))
      ].join("\n\n")
    }
  ];
};

const TEXT_REASON: Record<TextRequest["reason"], string> = {
  limit:
    "The limit on steps is reached, so no more tools can run. Answer now with what was found, and say plainly what could not be done.",
  ended: "The actions have ended. Answer the user now."
};

/** Chat messages asking for the final text answer, when no more decisions may be made. */
export const textMessages = (request: TextRequest): ChatMessage[] => {
  const data = request.treeData;
  return [
    {
      role: "system",
      content: `You write the final answer to the user's prompt, using only what is in <environment> and <tasks_completed>. Do not invent results. Reply in plain text, in the style of the atlas.\n\n${renderAtlas(data.atlas)}`
    },
    {
      role: "user",
      content: [
        ...contextSections(data),
        section("instruction", TEXT_REASON[request.reason])
      ].join("\n\n")
    }
  ];
};

// Small models often quote booleans and double-encode the inputs; accepting
// those costs nothing and saves a round trip.
const looseBoolean = lazy(() =>
  z
    .union([z.boolean(), z.enum(["true", "false"])])
    .transform((v) => v === true || v === "true")
);

const looseInputs = lazy(() =>
  z.preprocess(
    (value) => {
      if (value === undefined || value === null || value === "") return {};
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    },
    z.record(z.string(), z.json())
  )
);

const rawDecisionSchema = lazy(() =>
  z.object({
    reasoning: z.string().nullish(),
    message_update: z.string().nullish(),
    impossible: looseBoolean().nullish(),
    function_name: z.string(),
    function_inputs: looseInputs(),
    end_actions: looseBoolean().nullish()
  })
);

/** JSON text as models write it: fenced, after a think block, or amid prose. */
const parseJsonText = (text: string): unknown => {
  const value = jsonInProse(text);
  if (value !== undefined) return value;
  throw new ModelError(
    `The model's decision is not valid JSON: ${text.slice(0, 200)}`,
    true
  );
};

const QUOTES_RE = /^[\s"'`]+|[\s"'`]+$/g;

/** Exact names win; otherwise a unique case-insensitive match is taken as meant. */
const resolveName = (raw: string, options: TreeOption[]): string => {
  const name = raw.replace(QUOTES_RE, "");
  if (options.some((o) => o.name === name)) return name;
  const folded = options.filter(
    (o) => o.name.toLowerCase() === name.toLowerCase()
  );
  return folded.length === 1 && folded[0] ? folded[0].name : name;
};

/**
 * Reads a model's decision from JSON text or an already parsed object.
 * Output that is not a decision throws a retryable `ModelError`. A
 * `function_name` that is not an option is returned as it is: the tree asks
 * again with feedback, which tells the model more than a blind retry.
 */
export const parseDecision = (
  raw: unknown,
  options: TreeOption[]
): Decision => {
  let value = typeof raw === "string" ? parseJsonText(raw) : raw;
  // Some servers encode the arguments twice.
  if (typeof value === "string") value = parseJsonText(value);
  const parsed = rawDecisionSchema().safeParse(value);
  if (!parsed.success) {
    throw new ModelError(
      `The model's decision does not have the expected fields: ${z.prettifyError(parsed.error)}`,
      true
    );
  }
  const d = parsed.data;
  return {
    tool: resolveName(d.function_name, options),
    inputs: d.function_inputs as JsonObject,
    end: d.end_actions ?? false,
    message: d.message_update ?? "",
    impossible: d.impossible ?? false,
    ...(d.reasoning ? { reasoning: d.reasoning } : {})
  };
};
