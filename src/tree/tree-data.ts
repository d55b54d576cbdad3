/** @module Tree data helpers: conversation history, tasks completed, errors, and their text for the model. */

import { canonicalJson, cloneJson } from "../json";
import type {
  HistoryMessage,
  PromptTasks,
  TaskRecord,
  TreeData
} from "./types";

/**
 * A copy of tree data for code that only looks (rules, a running tool):
 * changing the copy cannot change the run's data, and its environment is
 * already the read-only view, so it is shared rather than copied.
 */
export const copyTreeData = (data: TreeData): TreeData => {
  const { environment, ...rest } = data;
  return { ...cloneJson(rest), environment };
};

/**
 * Adds a turn to the history. A turn from the same role as the last one is
 * appended to it, so everything the assistant says in one run (decision
 * messages, tool texts, the final answer) reads as one reply.
 */
export const addToHistory = (
  history: readonly HistoryMessage[],
  role: HistoryMessage["role"],
  text: string
): HistoryMessage[] => {
  if (text.trim() === "") return [...history];
  const last = history.at(-1);
  if (last?.role !== role) return [...history, { role, content: text }];
  const joiner = /\s$/.test(last.content) ? "" : " ";
  return [
    ...history.slice(0, -1),
    { role, content: `${last.content}${joiner}${text}` }
  ];
};

/**
 * Opens a run's block unless the latest block is already its own. Every
 * pass calls it first, so from a run's first decision on the latest block,
 * `tasksCompleted.at(-1)`, is the run's, and recording goes into it.
 */
export const openTasks = (
  tasks: readonly PromptTasks[],
  prompt: string,
  runId: string
): PromptTasks[] =>
  tasks.at(-1)?.runId === runId
    ? [...tasks]
    : [...tasks, { prompt, runId, tasks: [] }];

/** Appends `record` to the block of `prompt` when it is the latest, else opens a new block. */
export const recordTask = (
  tasks: readonly PromptTasks[],
  prompt: string,
  record: TaskRecord
): PromptTasks[] => {
  const last = tasks.at(-1);
  if (last?.prompt !== prompt) {
    return [...tasks, { prompt, tasks: [{ ...record }] }];
  }
  return [
    ...tasks.slice(0, -1),
    { ...last, tasks: [...last.tasks, { ...record }] }
  ];
};

/**
 * Merges `patch` into the latest task (to add a tool's output or error once
 * it ran). Nothing changes when the latest block is for another prompt.
 */
export const updateLastTask = (
  tasks: readonly PromptTasks[],
  prompt: string,
  patch: Partial<TaskRecord>
): PromptTasks[] => {
  const last = tasks.at(-1);
  const task = last?.tasks.at(-1);
  if (last?.prompt !== prompt || task === undefined) return [...tasks];
  // Undefined fields would not survive persistence as JSON; leave them out now.
  const defined = Object.fromEntries(
    Object.entries(patch).filter(([, v]) => v !== undefined)
  );
  return [
    ...tasks.slice(0, -1),
    { ...last, tasks: [...last.tasks.slice(0, -1), { ...task, ...defined }] }
  ];
};

// Null-prototype copies: a tool named `__proto__` or `constructor` is just a key.
const copyErrors = (
  errors: Readonly<Record<string, string[]>>
): Record<string, string[]> => {
  const copy: Record<string, string[]> = Object.create(null);
  for (const [tool, messages] of Object.entries(errors)) {
    copy[tool] = [...messages];
  }
  return copy;
};

/** Errors with `message` added to `tool`'s list. */
export const recordError = (
  errors: Readonly<Record<string, string[]>>,
  tool: string,
  message: string
): Record<string, string[]> => {
  const copy = copyErrors(errors);
  copy[tool] = [...(Object.hasOwn(copy, tool) ? copy[tool]! : []), message];
  return copy;
};

/** Errors without `tool`'s list: called when the tool succeeds, since its past errors are fixed. */
export const clearErrors = (
  errors: Readonly<Record<string, string[]>>,
  tool: string
): Record<string, string[]> => {
  const copy = copyErrors(errors);
  delete copy[tool];
  return copy;
};

/** Errors as the model reads them, grouped by tool; empty when there are none. */
export const renderErrors = (
  errors: Readonly<Record<string, string[]>>
): string =>
  Object.entries(errors)
    .filter(([, messages]) => messages.length > 0)
    .map(
      ([tool, messages]) =>
        `Errors from ${tool} (oldest first):\n${messages.map((m) => `- ${m}`).join("\n")}`
    )
    .join("\n\n");

const CHOSEN = {
  tool: "Chosen action",
  text: "Chosen action",
  branch: "Chosen branch"
} as const;

// Picking an option is not finishing it; the model should check the environment.
const CHOSEN_NOTE = {
  tool: "(picked; whether it achieved its aim shows in the environment)",
  text: "(picked; the reply was given to the user)",
  branch: "(a branch only narrows the options; it does nothing by itself)"
} as const;

const renderTask = (task: TaskRecord, index: number): string => {
  const tag = `task_${index + 1}`;
  const lines = [
    `<${tag}>`,
    `${CHOSEN[task.kind]}: ${task.task} ${CHOSEN_NOTE[task.kind]}`
  ];
  if (task.kind !== "branch") {
    lines.push(task.error ? "(UNSUCCESSFUL)" : "(SUCCESSFUL)");
  }
  lines.push(`Pass: ${task.pass}`);
  // Reasoning that led to an error would only invite the model to repeat it.
  if (task.reasoning && !task.error) lines.push(`Reasoning: ${task.reasoning}`);
  if (task.inputs && Object.keys(task.inputs).length > 0) {
    lines.push(`Inputs: ${canonicalJson(task.inputs)}`);
  }
  if (task.output) lines.push(`Output: ${task.output}`);
  lines.push(`</${tag}>`);
  return lines.join("\n");
};

/** Tasks completed, per prompt, as the model reads them; empty when there are none. */
export const renderTasksCompleted = (tasks: readonly PromptTasks[]): string =>
  tasks
    .map((block, i) => {
      const tag = `prompt_${i + 1}`;
      return [
        `<${tag}>`,
        `Prompt: ${block.prompt}`,
        ...block.tasks.map(renderTask),
        `</${tag}>`
      ].join("\n");
    })
    .join("\n");

/** Which pass this is out of the limit, warning the model as the limit nears. */
export const treeCount = (pass: number, limit: number): string => {
  const count = `${pass}/${limit}`;
  if (pass === limit) {
    return `${count} (this is the last decision you can make; after it you must give the final answer)`;
  }
  if (pass > limit) {
    return `${count} (the decision limit is reached; give the final answer with what you have)`;
  }
  return count;
};
