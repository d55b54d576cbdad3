/**
 * @module A scripted policy that solves the example environments (counter,
 * calculator, story) without a model: a policy as a user writes one, over
 * `roost-edge/client`. The rollout CLI loads it with `--policy
 * examples/scripted-policy/index.ts`.
 */

import {
  type ActionInput,
  callTool,
  type Message,
  messageText,
  type OpenAITool,
  type Policy
} from "roost-edge/client";
import { deskAction, markAction } from "./agents";
import { evaluate } from "./arithmetic";
import { lastNumber, readExpression } from "./read-question";
import { readWordProblem } from "./word-problems";

const hasTool = (tools: OpenAITool[], name: string): boolean =>
  tools.some((t) => t.function.name === name);

const callId = (history: Message[]): string => `call_${history.length}`;

/** The user messages of the episode, newest last: where the task was stated. */
const userText = (messages: Message[]): string =>
  messages
    .filter((m) => m.role === "user")
    .map(messageText)
    .join("\n");

/** Counter: `incr` or `decr` toward the target the first observation names. */
const counterAction = (
  observations: Message[],
  history: Message[]
): ActionInput => {
  const all = [...history, ...observations];
  const target = /count to (-?\d+)/i.exec(userText(all))?.[1];
  const readings = all
    .map(messageText)
    .flatMap((text) => [...text.matchAll(/counter\s*=\s*(-?\d+)/gi)]);
  const current = readings.at(-1)?.[1];
  const name =
    target !== undefined &&
    current !== undefined &&
    Number(current) > Number(target)
      ? "decr"
      : "incr";
  return callTool(callId(history), name, {});
};

interface ParameterSchema {
  type?: unknown;
  anyOf?: { type?: unknown }[];
}

const parametersOf = (
  tools: OpenAITool[],
  tool: string
): Record<string, ParameterSchema> => {
  const parameters = tools.find((t) => t.function.name === tool)?.function
    .parameters as { properties?: Record<string, ParameterSchema> };
  return parameters?.properties ?? {};
};

/** The answer as its parameter's schema wants it: a number unless only strings are accepted. */
const answerArguments = (
  tools: OpenAITool[],
  value: number
): Record<string, unknown> => {
  const [name, schema] = Object.entries(
    parametersOf(tools, "submit_answer")
  )[0] ?? ["answer", {}];
  const types = [
    schema.type,
    ...(schema.anyOf ?? []).map((s) => s.type)
  ].flat();
  return {
    [name]:
      types.includes("string") && !types.includes("number")
        ? String(value)
        : value
  };
};

const expressionParameter = (tools: OpenAITool[]): string => {
  const names = Object.keys(parametersOf(tools, "calculator"));
  return names.find((n) => n.startsWith("expr")) ?? names[0] ?? "expression";
};

/**
 * Calculator: reads the question's arithmetic, asks the `calculator` tool,
 * then submits its result. Falls back to its own arithmetic when the tool
 * fails, and to the question's last number when nothing can be read.
 */
const calculatorAction = (
  observations: Message[],
  tools: OpenAITool[],
  history: Message[]
): ActionInput => {
  const question = userText([...history, ...observations]);
  const expression = readWordProblem(question) ?? readExpression(question);
  const asked = history.some(
    (m) =>
      m.role === "assistant" &&
      m.tool_calls?.some((c) => c.function.name === "calculator")
  );
  if (expression !== undefined && !asked && hasTool(tools, "calculator"))
    return callTool(callId(history), "calculator", {
      [expressionParameter(tools)]: expression
    });
  const result = observations.find(
    (m) => m.role === "tool" && m.name === "calculator" && !m.is_error
  );
  const fromTool = result ? Number(messageText(result).trim()) : Number.NaN;
  const answer = Number.isFinite(fromTool)
    ? fromTool
    : ((expression === undefined ? undefined : evaluate(expression)) ??
      lastNumber(question) ??
      0);
  return callTool(
    callId(history),
    "submit_answer",
    answerArguments(tools, answer)
  );
};

const FILLER = ["sang", "all", "night", "long"];

/** Story: a five-word story about the topic the prompt names. */
const storyAction = (
  observations: Message[],
  history: Message[]
): ActionInput => {
  const text = userText([...history, ...observations]);
  const topic = /about ([a-z][a-z -]*?)(?: and call|[.,\n]|$)/i.exec(text)?.[1];
  const words = ["The", ...(topic ?? "frogs").split(/\s+/).slice(0, 3)];
  const story = [...words, ...FILLER].slice(0, 5).join(" ");
  return callTool(callId(history), "print_story", { story: `${story}.` });
};

/**
 * Recognises an environment by its tools: `incr`/`decr` (counter),
 * `submit_answer` (calculator), `print_story` (story), `mark` (either
 * side of tictactoe), `refund` (support's desk). Any other
 * environment gets an error naming the tools it saw.
 *
 * @example
 * await rollout({ baseUrl, environment: "calculator", policy: scriptedPolicy, episodes: 50 });
 */
export const scriptedPolicy: Policy = (observations, tools, history) => {
  if (hasTool(tools, "incr")) return counterAction(observations, history);
  if (hasTool(tools, "submit_answer"))
    return calculatorAction(observations, tools, history);
  if (hasTool(tools, "print_story")) return storyAction(observations, history);
  if (hasTool(tools, "mark")) return markAction(observations, history);
  if (hasTool(tools, "refund")) return deskAction(observations, history);
  throw new Error(
    `The scripted policy knows counter, calculator, story, tictactoe and support; this environment has the tools ${tools
      .map((t) => t.function.name)
      .join(", ")}.`
  );
};

/** What the rollout CLI loads from this module. */
export const policy = scriptedPolicy;
