/** @module One pass of a decision tree (Elysia's tree pass): decide, run, record — over any session parts. */

import type { Environment } from "../environment/define-environment";
import { createEpisodeControl } from "../environment/episode-control";
import type { SessionParts } from "../environment/hook-calls";
import { RoostError } from "../errors";
import { cloneJson, type JsonObject } from "../json";
import type { Emit } from "../protocol";
import { readOnlyStore } from "../store/reader";
import { healingText } from "../store/result";
import { type ExecuteOptions, executeToolCalls } from "../tools/execute";
import type { ResolvedTree, TreeNode } from "../tree/define-tree";
import {
  addToHistory,
  clearErrors,
  openTasks,
  recordError,
  recordTask,
  updateLastTask
} from "../tree/tree-data";
import type {
  Decision,
  DecisionModel,
  HistoryMessage,
  PromptTasks,
  TreeData
} from "../tree/types";
import { decide } from "./decide";
import { optionsAt, runIfTools } from "./options";

/** What a run carries from pass to pass (persisted by the caller). */
export interface RunProgress {
  runId: string;
  prompt: string;
  /** Passes finished so far; this pass is `passes + 1`. */
  passes: number;
  /** Model decisions made so far (scripted models index by it). */
  decisions: number;
  tasks: PromptTasks[];
  errors: Record<string, string[]>;
  /** The conversation so far (Elysia's history); the pass adds what the tree says. */
  history: HistoryMessage[];
}

export type PassEnd = {
  outcome: "answered" | "ended" | "impossible" | "recursion_limit";
  text: string;
};

export interface PassResult {
  progress: RunProgress;
  /** Set when the run is over. */
  end?: PassEnd;
}

export interface PassInput {
  env: Environment;
  tree: ResolvedTree;
  parts: SessionParts;
  task: unknown;
  model: DecisionModel;
  progress: RunProgress;
  /** Streams a tree event (`tree.decision`, `update`). */
  emit: Emit;
  execute: ExecuteOptions;
  /** Re-asks after a model names an option that is not offered (default 2). */
  maxRetries?: number;
  signal?: AbortSignal;
}

/** How much of a tool's message the tasks-completed record keeps. */
const OUTPUT_CHARS = 600;

const clip = (text: string): string =>
  text.length > OUTPUT_CHARS ? `${text.slice(0, OUTPUT_CHARS)}…` : text;

/** The tree data but the store's view string, which costs a serialisation of the store. */
const treeBase = (
  input: PassInput,
  p: RunProgress
): Omit<TreeData, "environmentView"> => ({
  userPrompt: p.prompt,
  conversationHistory: p.history,
  atlas: input.tree.atlas,
  environment: readOnlyStore(input.parts.environment),
  tasksCompleted: p.tasks,
  errors: p.errors,
  pass: p.passes + 1,
  recursionLimit: input.tree.recursionLimit
});

const treeDataOf = (input: PassInput, p: RunProgress): TreeData => ({
  ...treeBase(input, p),
  environmentView: input.parts.environment.llmView()
});

/**
 * The tree data a tool's `ctx.tree` holds: a copy (a tool cannot change the
 * run's), with the store's view string made only if the tool reads it —
 * most never do.
 */
const toolTreeData = (input: PassInput, p: RunProgress): TreeData => {
  const { environment, ...rest } = treeBase(input, p);
  let view: string | undefined;
  return Object.defineProperty(
    { ...cloneJson(rest), environment },
    "environmentView",
    {
      enumerable: true,
      get: () => (view ??= input.parts.environment.llmView())
    }
  ) as TreeData;
};

/** A reply the user hears: in the conversation history (Elysia's), not in the transcript. */
const heard = (p: RunProgress, text: string): RunProgress =>
  text === ""
    ? p
    : { ...p, history: addToHistory(p.history, "assistant", text) };

/** A reply in the transcript and in the conversation history. */
const say = (input: PassInput, p: RunProgress, text: string): RunProgress => {
  if (text === "") return p;
  input.parts.state.set("messages", { role: "assistant", content: text });
  return heard(p, text);
};

/**
 * Runs one pass from the root: `runIf` tools, then decisions down the
 * branches until a tool runs (and its follow-ups, if it has any) or the run
 * ends. Everything goes through
 * `parts`, so a session commits the pass as one mutation, or not at all.
 */
export const runPass = async (input: PassInput): Promise<PassResult> => {
  const { tree, model } = input;
  let p: RunProgress = {
    ...input.progress,
    tasks: openTasks(
      input.progress.tasks,
      input.progress.prompt,
      input.progress.runId
    )
  };
  const pass = p.passes + 1;
  const finish = (end: PassEnd): PassResult => ({
    progress: { ...p, passes: pass },
    end
  });

  if (pass > tree.recursionLimit) {
    const text = await model.respond(
      { treeData: treeDataOf(input, p), reason: "limit" },
      { decisionIndex: p.decisions, ...signalOf(input) }
    );
    p = say(input, p, text);
    return finish({ outcome: "recursion_limit", text });
  }

  let node: TreeNode = tree.root;
  for (;;) {
    // Before the node's rules and decision, so a viewer can show where the
    // run is while they take their time.
    input.emit("tree.node", {
      run_id: p.runId,
      payload: { pass, node: node.id }
    });
    const before = treeDataOf(input, p);
    const autos = await runIfTools(node, input.env.tools, before);
    for (const auto of autos) {
      ({ progress: p } = await runTool(
        input,
        p,
        pass,
        auto.tool,
        auto.inputs,
        "runIf"
      ));
    }
    // Made again only when a runIf tool ran: it may have changed the store.
    const treeData = autos.length === 0 ? before : treeDataOf(input, p);
    const { options, unavailable } = await optionsAt(
      tree,
      node,
      input.env.tools,
      treeData
    );
    if (options.length === 0 && node.kind === "followUps") {
      // Follow-ups are optional extras: none available ends the pass.
      return { progress: { ...p, passes: pass } };
    }
    if (options.length === 0) {
      throw new RoostError(
        "conflict",
        `No option is available at ${node.id}: ${unavailable.map((u) => `${u.name} (${u.reason})`).join(", ") || "the node is empty"}.`
      );
    }
    const { decision, option, used } = await decide(
      { ...input, decisions: p.decisions },
      {
        treeData,
        node,
        options,
        unavailable
      }
    );
    p = { ...p, decisions: p.decisions + used };
    input.emit("tree.decision", {
      run_id: p.runId,
      payload: {
        pass,
        node: node.id,
        option: option.name,
        kind: option.kind,
        inputs: decision.inputs,
        end: decision.end,
        impossible: decision.impossible,
        message: decision.message,
        ...(decision.reasoning ? { reasoning: decision.reasoning } : {})
      }
    });
    if (decision.message !== "") {
      input.emit("update", {
        kind: "text",
        payload: { text: decision.message }
      });
    }
    p = {
      ...p,
      tasks: recordTask(p.tasks, p.prompt, {
        task: option.name,
        pass,
        kind: option.kind,
        ...(decision.reasoning ? { reasoning: decision.reasoning } : {}),
        ...(Object.keys(decision.inputs).length > 0
          ? { inputs: decision.inputs }
          : {})
      })
    };

    if (option.kind === "text") {
      const text = textOf(decision);
      p = say(input, p, text);
      // The text option is also how a model explains why it cannot help.
      return finish({
        outcome: decision.impossible ? "impossible" : "answered",
        text
      });
    }
    if (decision.impossible) {
      p = say(input, p, decision.message);
      const text = await model.respond(
        { treeData: treeDataOf(input, p), reason: "ended" },
        { decisionIndex: p.decisions, ...signalOf(input) }
      );
      p = say(input, p, text);
      return finish({ outcome: "impossible", text });
    }
    if (option.kind === "branch") {
      p = say(input, p, decision.message);
      node = tree.node(option.name)!;
      continue;
    }

    // The decision's message goes out with the tool call it explains.
    p = heard(p, decision.message);
    const ran = await runTool(
      input,
      p,
      pass,
      option.name,
      decision.inputs,
      "decision",
      decision.message
    );
    p = ran.progress;
    if (!ran.failed && decision.end && option.end) {
      // The tool's whole message is the answer (the task record keeps a
      // clip), and the conversation history reads it as the reply.
      p = say(input, p, ran.content);
      return finish({ outcome: "ended", text: ran.content });
    }
    // A yielded error keeps the loop going so the model can correct itself,
    // from the root of the next pass: follow-ups need their tool's output.
    const next = ran.failed ? undefined : node.followUps[option.name];
    if (next === undefined) return { progress: { ...p, passes: pass } };
    node = next;
  }
};

const signalOf = (input: PassInput) =>
  input.signal ? { signal: input.signal } : {};

const textOf = (decision: Decision): string => {
  const text = decision.inputs.text;
  return typeof text === "string" && text !== "" ? text : decision.message;
};

/** Runs one tool as a call of this pass and records its task and errors. */
const runTool = async (
  input: PassInput,
  p: RunProgress,
  pass: number,
  tool: string,
  inputs: JsonObject,
  why: "decision" | "runIf",
  message = ""
): Promise<{ progress: RunProgress; failed: boolean; content: string }> => {
  // The transcript's length makes the id unique even when one tool runs
  // twice in a pass (by runIf and by decision, or at two nodes).
  const id = `${p.runId}_${pass}_${input.parts.state.messageCount()}_${tool}`;
  const call = {
    id,
    type: "function" as const,
    function: { name: tool, arguments: inputs }
  };
  input.parts.state.set("messages", {
    role: "assistant",
    content: message,
    tool_calls: [call]
  });
  const { control } = createEpisodeControl();
  // Text a tool streams is part of the reply (Elysia's Text results).
  const texts: string[] = [];
  const hooks = input.execute.hooks;
  const [outcome] = await executeToolCalls(
    [call],
    {
      ...input.parts,
      tools: input.env.tools,
      task: input.task,
      episode: control,
      tree: toolTreeData(input, p)
    },
    {
      ...input.execute,
      hooks: {
        ...hooks,
        onUpdate: (ref, update) => {
          if (update.kind === "text") texts.push(update.text);
          hooks?.onUpdate?.(ref, update);
        }
      }
    }
  );
  const result = outcome!;
  input.parts.state.set("messages", result.message);
  const content =
    typeof result.message.content === "string"
      ? result.message.content
      : JSON.stringify(result.message.content);
  let tasks = p.tasks;
  if (why === "runIf") {
    tasks = recordTask(tasks, p.prompt, {
      task: tool,
      pass,
      kind: "tool",
      reasoning: "Ran automatically: its runIf condition held."
    });
  }
  tasks = updateLastTask(tasks, p.prompt, {
    output: clip(content),
    ...(result.message.is_error ? { error: true } : {})
  });
  // A self-healing error is recorded as Elysia shows it to the model:
  // avoidable (with the feedback) or not (with what went wrong).
  const errors = result.message.is_error
    ? recordError(
        p.errors,
        tool,
        result.error ? healingText(result.error) : content
      )
    : clearErrors(p.errors, tool);
  let history = p.history;
  for (const text of texts) history = addToHistory(history, "assistant", text);
  return {
    progress: { ...p, tasks, errors, history },
    failed: result.message.is_error,
    content
  };
};
