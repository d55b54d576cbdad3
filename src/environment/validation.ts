/** @module What `validate` reads from an environment: a reference policy (oracle), or why there is none. */

import type { Message } from "../messages/schema";
import type { ActionInput, OpenAITool } from "../protocol";

/** An action, bare or as a client policy's decision (`{ action }`). */
export type OracleAction = ActionInput | { action: ActionInput };

/**
 * A policy as the client's rollout takes one (`Policy` of roost-edge/client
 * fits): the latest observations, the episode's tools and every message
 * before them in; the next action out.
 */
export type OraclePolicy = (
  observations: Message[],
  tools: OpenAITool[],
  history: Message[]
) => OracleAction | Promise<OracleAction>;

/**
 * How `roost-edge validate` judges the environment's rewards. Give an
 * `oracle`, or say in `noOracle` why there can be none (a model grades the
 * answers, say); without either, the oracle check fails with "no oracle".
 */
export interface ValidationConfig<Task = unknown> {
  /**
   * A reference policy for one task: it may read the task (an answer the
   * model never sees), so it must reach `maxReturn` on every task sampled.
   * A method, so an environment of any task fits `Environment`.
   */
  oracle?(task: Task): OraclePolicy;
  /** Why the environment has no oracle; the oracle check reports it and passes. */
  noOracle?: string;
  /** The most an episode can return; default 1. */
  maxReturn?: number;
  /** Steps an episode of the validator may take when the environment sets no `maxSteps`; default 50. */
  maxSteps?: number;
}
