/** @module What an environment's reset, steps and tools are given and give back: contexts and results. */

import type {
  AssistantMessage,
  Message,
  ToolMessage
} from "../messages/schema";
import type { StateAccess, StateShape } from "../state/types";
import type { Update } from "../store/result";
import type { EnvironmentStore, HiddenStore } from "../store/types";
import type { ToolInput } from "../tools/define-tool";
import type { SqlExec } from "../tools/types";
import type { AgentObservations } from "./agents";

/** What reset and step may return as observations: text becomes a user message. */
export type Observations = string | Message | Message[];

/**
 * What reset returns: the observations, or them and the tools this episode
 * offers (Aviary's `reset() -> (obs, tools)`). Without `tools` every tool
 * of the environment is offered.
 */
export type ResetResult<ToolName extends string = string> =
  | Observations
  | {
      /** In a multi-agent environment, also a record: each agent's own. */
      observations: Observations | AgentObservations;
      tools?: readonly ToolName[];
      /** A multi-agent environment's first turn; its first agent's if absent. */
      turn?: string | readonly string[];
    };

/** What reset, custom steps, evaluate and frame receive. */
export interface EpisodeContext<Shape extends StateShape, Task> {
  task: Task;
  environment: EnvironmentStore;
  hidden: HiddenStore;
  state: StateAccess<Shape>;
  emit(update: Update): void;
  sql?: SqlExec;
}

export interface StepContext<Shape extends StateShape, Task>
  extends EpisodeContext<Shape, Task> {
  /** 1-based number of this step in the episode. */
  step: number;
  /** The agent acting, in a multi-agent environment; absent otherwise. */
  agent?: string;
  /** Runs the action's tool calls as the default step does (Aviary's exec_tool_calls). */
  executeToolCalls(action: AssistantMessage): Promise<ToolMessage[]>;
}

export interface StepResult {
  /** In a multi-agent environment, also a record: each agent's own. */
  observations: Observations | AgentObservations;
  reward?: number;
  /**
   * In a multi-agent environment, `true` ends every agent's part and a
   * list of agents ends theirs; the episode ends when no agent plays.
   */
  done?: boolean | readonly string[];
  truncated?: boolean;
  /** A multi-agent environment's rewards by agent; `reward` is the acting agent's otherwise. */
  rewards?: Readonly<Record<string, number>>;
  /** Whose turn it is next; absent, the next agent still playing in the environment's order. */
  turn?: string | readonly string[];
}

export interface Evaluation {
  reward?: number;
  done?: boolean;
}

/** Tools by name as declared: what typed clients read tool names and inputs from. */
export type ToolTypes = Record<string, { readonly input: ToolInput }>;
