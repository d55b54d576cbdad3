/** @module Types of decision trees (Elysia): the definition, tree data, decisions and decision models. */

import type { JsonObject } from "../json";
import type { EnvironmentReader } from "../store/types";

/** Elysia's Atlas: who the agent is and what it is for. */
export interface Atlas {
  style: string;
  agentDescription: string;
  endGoal: string;
}

/**
 * A tool offered at a node: its name, or the tool with the tools offered
 * right after it ran (Elysia's `add_tool(…, from_tool_ids=[…])`).
 */
export type ToolEntry = string | ToolWithFollowUps;

/**
 * `{ tool: "query", followUps: ["check_output"] }`: after `query` runs
 * successfully at this node (and the run goes on), the same pass continues
 * at the node `<node>.query`, whose options are the follow-ups. A follow-up
 * may have its own (`{ tool: "check_output", followUps: […] }`), so chains
 * are nested entries.
 */
export interface ToolWithFollowUps {
  tool: string;
  followUps: ToolEntry[];
  /** How to choose among the follow-ups; by default, that they follow `tool`. */
  instruction?: string;
}

/** A group of tools (and sub-branches) the model picks among at one node. */
export interface BranchConfig {
  /** Unique in the tree; a tool name or NAME_RE form. */
  id: string;
  /** Shown to the model at the parent node, to choose this branch. */
  description: string;
  /** Shown to the model at this node: how to choose among its options. */
  instruction: string;
  /** The environment's tools offered at this node, some with follow-ups. */
  tools?: ToolEntry[];
  branches?: BranchConfig[];
}

/** `defineEnvironment({ tree })`. The root node offers `tools` and `branches`. */
export interface TreeConfig {
  atlas?: Partial<Atlas>;
  /** How to choose at the root. */
  instruction?: string;
  tools?: ToolEntry[];
  branches?: BranchConfig[];
  /** Passes decided freely; the pass after the last is a forced final answer. Default 5. */
  recursionLimit?: number;
  /** Offer the built-in `text_response` at the root (default true). */
  textResponse?: boolean;
  /** The environment's own decision model (e.g. a scripted one), for runs that name no other. */
  model?: DecisionModel;
}

/** One option at a node as the model sees it. */
export interface TreeOption {
  /** Tool name, branch id, or `text_response`. */
  name: string;
  kind: "tool" | "branch" | "text";
  description: string;
  /** JSON schema of the tool's inputs (tools and `text_response` only). */
  inputs?: JsonObject;
  /** Whether choosing it with `end: true` may end the run. */
  end: boolean;
  /**
   * A branch's options further down, as Elysia's "future tools" show them:
   * `{ tool: {}, sub_branch: { its_tool: {} } }`, so the model can pick a
   * branch for a tool it leads to.
   */
  leadsTo?: JsonObject;
}

export interface UnavailableOption {
  name: string;
  description: string;
  /** Why it cannot be picked now (the tool's `available` reason). */
  reason: string;
}

/** One entry of tasks completed (per prompt), as Elysia records it, without its merge quirks. */
export interface TaskRecord {
  task: string;
  /** 1-based pass of the run in which it was chosen. */
  pass: number;
  kind: "tool" | "branch" | "text";
  reasoning?: string;
  inputs?: JsonObject;
  /** Short text of what the tool produced (its tool message content). */
  output?: string;
  error?: boolean;
}

export interface PromptTasks {
  prompt: string;
  /** The run that recorded them: a prompt asked twice is two blocks. */
  runId?: string;
  tasks: TaskRecord[];
}

/** A conversation turn, merged per role as Elysia merges them. */
export interface HistoryMessage {
  role: "user" | "assistant";
  content: string;
}

/**
 * Everything the model, `available`/`runIf` and a tool's `ctx.tree` see
 * (Elysia's tree data), built afresh for each decision.
 */
export interface TreeData {
  userPrompt: string;
  conversationHistory: HistoryMessage[];
  atlas: Atlas;
  /**
   * The environment store, read-only (`find`, `has`, `isEmpty`, `keys`,
   * `slice`, `toJSON`…): Elysia's `tree_data.environment`, so
   * `!tree.environment.isEmpty()` reads as it does there.
   */
  environment: EnvironmentReader;
  /** The store as the model reads it: compact JSON, newest first, capped. */
  environmentView: string;
  tasksCompleted: PromptTasks[];
  /** Per tool: messages of its yielded errors, cleared when it next succeeds. */
  errors: Record<string, string[]>;
  /** 1-based pass about to be decided. */
  pass: number;
  recursionLimit: number;
}

/** What the model is asked at one node. */
export interface DecisionRequest {
  treeData: TreeData;
  /** The node's id (`root` at the root). */
  node: string;
  instruction: string;
  options: TreeOption[];
  unavailable: UnavailableOption[];
  /** Feedback from earlier attempts at this decision (unknown option names). */
  feedback: string[];
}

/** The model's choice (Elysia's Decision). */
export interface Decision {
  /** An option name at this node. */
  tool: string;
  inputs: JsonObject;
  /** End after this tool, if the tool may end the run. */
  end: boolean;
  /** One sentence to the user, streamed and kept in the conversation. */
  message: string;
  impossible: boolean;
  reasoning?: string;
}

/** The forced final answer after the recursion limit (or after a non-ending tool ends the run). */
export interface TextRequest {
  treeData: TreeData;
  /** Why a text answer is forced. */
  reason: "limit" | "ended";
}

export interface CallOptions {
  signal?: AbortSignal;
  /** 0-based count of decisions made in this run so far; scripted models index by it. */
  decisionIndex: number;
}

/** One message of a plain chat completion, as a judge (rewards/judge.ts) writes its prompt. */
export interface ChatTurn {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * Picks options and writes final answers. Implementations throw
 * `ModelError` for failures worth retrying (timeouts, 5xx, unparsable output).
 */
export interface DecisionModel {
  readonly name: string;
  decide(request: DecisionRequest, options: CallOptions): Promise<Decision>;
  respond(request: TextRequest, options: CallOptions): Promise<string>;
  /**
   * The text answering `messages`, with no tree prompt around them: what a
   * judge asks. Optional, so a model written only to decide still is one;
   * a judge naming a model without it fails with a component error.
   */
  chat?(messages: ChatTurn[], options: CallOptions): Promise<string>;
}
