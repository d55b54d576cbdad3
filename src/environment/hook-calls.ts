/** @module Reset, step and direct invocation over a session's parts — the same code in memory and in a Durable Object. */

import { RoostError } from "../errors";
import type {
  AssistantMessage,
  Message,
  ToolMessage
} from "../messages/schema";
import type { RewardComponents } from "../protocol";
import { viewOf } from "../protocol/agents";
import type { Judges } from "../rewards/judges";
import type { StateAccess, StateShape } from "../state/types";
import type { Update } from "../store/result";
import type {
  EnvironmentStore,
  HiddenStore,
  LocatedEntry
} from "../store/types";
import { type ExecuteOptions, executeToolCalls } from "../tools/execute";
import type { MergeableState } from "../tools/outputs";
import type { CallOutcome, SqlExec, ToolException } from "../tools/types";
import {
  AGENTS_KEY,
  type AgentObservations,
  type AgentsRecord,
  advanceAgents,
  agentMessages,
  agentsOf,
  rosterOf,
  startAgents
} from "./agents";
import type {
  Environment,
  EpisodeContext,
  Observations,
  ResetResult,
  StepResult
} from "./define-environment";
import { createEpisodeControl } from "./episode-control";
import { checkEpisodeTools } from "./episode-tools";
import { callHook } from "./hook-failure";
import { type RubricWrites, scoreRewards } from "./score-step";

/** What one session holds. */
export interface SessionParts {
  environment: EnvironmentStore;
  hidden: HiddenStore;
  state: MergeableState;
  sql?: SqlExec;
}

export interface StepOutcome {
  observations: Message[];
  reward: number;
  done: boolean;
  truncated: boolean;
  results: LocatedEntry[];
  /** What each rubric component scored; absent when the environment has no rubric. */
  reward_components?: RewardComponents;
  /**
   * In a multi-agent environment: the agent that acted, whose turn it is
   * now, and what each agent got from the step. `observations` are then
   * the acting agent's view of the step's; the transcript has them all.
   */
  agents?: {
    agent: string;
    turn: string[];
    rewards: Record<string, number>;
    done: string[];
  };
  /**
   * The step as an episode rubric keeps it: where its action is in the
   * transcript, and its reward before any episode score was added (what a
   * re-scoring episode rubric reads of it); and what its rubrics wrote to
   * the hidden store, which re-scoring applies after the step, not before.
   */
  kept: { at: number; reward: number; rubricWrites?: RubricWrites };
  /**
   * What the step's tools threw, stack included, in call order; absent when
   * none threw. The observations say only `Tool x failed: <message>`: this
   * is for the environment's author (a local session's caller), not the model.
   */
  exceptions?: ThrownByTool[];
}

/** One tool call's exception, named by its call. */
export interface ThrownByTool extends ToolException {
  /** The tool call's id, as in its tool message's `tool_call_id`. */
  callId: string;
  tool: string;
}

/** Aviary's answer to an action without tool calls. */
export const NO_TOOL_CALLS =
  "No tool calls received. Please call one or more tools to proceed.";

export const toMessages = (obs: Observations): Message[] =>
  typeof obs === "string"
    ? [{ role: "user", content: obs }]
    : Array.isArray(obs)
      ? obs
      : [obs];

/** What a hook of the environment (reset, step, frame, onClose) is given. */
export const contextOf = (
  parts: SessionParts,
  task: unknown,
  options: ExecuteOptions
): EpisodeContext<StateShape, unknown> => ({
  task,
  environment: parts.environment,
  hidden: parts.hidden,
  // The one place the erased state meets the typed view hooks are given.
  state: parts.state as unknown as StateAccess<StateShape>,
  emit: (update: Update) =>
    options.hooks?.onUpdate?.({ id: "", tool: "" }, update),
  ...(parts.sql ? { sql: parts.sql } : {})
});

/** Reset's answer apart: a Message has a role, the `{ observations, tools }` form has none. */
const splitReset = (
  result: ResetResult
): {
  observations: Observations | AgentObservations;
  tools?: readonly unknown[];
  turn?: string | readonly string[];
} =>
  typeof result === "object" &&
  !Array.isArray(result) &&
  !("role" in result) &&
  "observations" in result
    ? result
    : { observations: result as Observations };

/**
 * Starts an episode on empty parts: the initial observations go into the
 * transcript. `tools` is the episode's subset when reset chose one
 * (checked, in the environment's order), undefined when it offers all.
 */
export const runReset = async (
  environment: Environment,
  parts: SessionParts,
  task: unknown,
  options: ExecuteOptions = {}
): Promise<{ observations: Message[]; tools?: string[] }> => {
  const ctx = contextOf(parts, task, options);
  const result = splitReset(
    await callHook(environment.name, "reset", () =>
      environment.reset({ task, ctx })
    )
  );
  if (result.tools !== undefined && !Array.isArray(result.tools)) {
    throw new RoostError(
      "internal",
      `The reset of ${environment.name} returned tools that are not a list of tool names.`
    );
  }
  const tools =
    result.tools === undefined
      ? undefined
      : checkEpisodeTools(environment, result.tools);
  const roster = rosterOf(environment);
  let observations: Message[];
  if (roster === undefined) {
    observations = toMessages(result.observations as Observations);
  } else {
    observations = agentMessages(
      environment.name,
      roster,
      result.observations,
      toMessages
    );
    parts.state.set(
      AGENTS_KEY,
      startAgents(environment.name, roster, result.turn)
    );
  }
  parts.state.set("messages", observations);
  return { observations, ...(tools === undefined ? {} : { tools }) };
};

/** How a step runs: its tool calls as every call does, and what the runtime lends its judges. */
export interface StepOptions extends ExecuteOptions {
  judges?: Judges;
  /**
   * The caller parsed the action as a message and checked its size (a
   * session's step, whose dispatch parsed its input): it is appended as it
   * is, not parsed a second time. The transcript keeps its own copy.
   */
  actionChecked?: true;
  /** The agent acting, in a multi-agent environment (`stepAgent`). */
  agent?: string;
  /**
   * A turn the environment plays (played-turns.ts): no rubric scores it,
   * and its observations are answered whole, for the caller to filter.
   */
  played?: true;
  /** Told each agent before its turn runs, played turns included (a session tags its events). */
  onTurn?: (agent: string) => void;
}

/** One step: the action and its observations are appended to the transcript. */
export const runStep = async (
  environment: Environment,
  parts: SessionParts,
  task: unknown,
  step: number,
  action: AssistantMessage,
  options: StepOptions = {}
): Promise<StepOutcome> => {
  const at = parts.state.messageCount();
  const agent = options.agent;
  const roster = agent === undefined ? undefined : rosterOf(environment);
  // Tagged with its agent: what the others see of it is theirs to be told.
  const own = <M extends Message>(m: M): M =>
    agent === undefined ? m : { ...m, agent };
  if (options.actionChecked) parts.state.appendChecked([own(action)]);
  else parts.state.set("messages", own(action));
  const { control, signals } = createEpisodeControl();
  const ctx = contextOf(parts, task, options);
  const results: LocatedEntry[] = [];
  const exceptions: ThrownByTool[] = [];
  const execute = async (a: AssistantMessage): Promise<ToolMessage[]> => {
    const outcomes: CallOutcome[] = await executeToolCalls(
      a.tool_calls ?? [],
      {
        ...parts,
        tools: environment.tools,
        task,
        episode: control,
        ...(agent === undefined ? {} : { agent })
      },
      options
    );
    for (const o of outcomes) {
      results.push(...o.results);
      if (o.exception !== undefined) {
        const { tool_call_id, name } = o.message;
        exceptions.push({ callId: tool_call_id, tool: name, ...o.exception });
      }
    }
    return outcomes.map((o) => own(o.message));
  };
  let observations: Message[];
  let reward = 0;
  let done = false;
  let truncated = false;
  let said: StepResult | undefined;
  let toolMessages: ToolMessage[] = [];
  let base: { name: "evaluate" | "step"; reward: number } | undefined;
  if (environment.step) {
    const custom = environment.step;
    const r = await callHook(environment.name, "step", () =>
      custom(action, {
        ...ctx,
        step,
        executeToolCalls: execute,
        ...(agent === undefined ? {} : { agent })
      })
    );
    said = r;
    observations =
      roster === undefined
        ? toMessages(r.observations as Observations)
        : agentMessages(environment.name, roster, r.observations, toMessages);
    reward = r.reward ?? 0;
    done = r.done === true;
    truncated = r.truncated ?? false;
    toolMessages = observations.filter((m) => m.role === "tool");
    base = { name: "step", reward };
  } else if ((action.tool_calls ?? []).length === 0) {
    observations = toMessages(NO_TOOL_CALLS).map(own);
  } else {
    const messages = await execute(action);
    observations = messages;
    const evaluate = environment.evaluate;
    const evaluation = evaluate
      ? await callHook(environment.name, "evaluate", () =>
          evaluate({ observations: messages, ctx })
        )
      : {};
    reward = evaluation.reward ?? 0;
    done = evaluation.done ?? false;
    toolMessages = messages;
    if (environment.evaluate) base = { name: "evaluate", reward };
  }
  const s = signals();
  reward += s.reward;
  done ||= s.ended;
  truncated ||= s.truncated;
  let record: AgentsRecord | undefined;
  if (agent !== undefined && roster !== undefined) {
    const rewards = { ...said?.rewards };
    rewards[agent] = (rewards[agent] ?? 0) + reward;
    record = advanceAgents(environment.name, roster, agentsOf(parts), agent, {
      rewards,
      done: done || (said?.done ?? false),
      ...(said?.turn === undefined ? {} : { turn: said.turn })
    });
    // The rubrics below score the acting agent's step.
    reward = record.rewards[agent]!;
    // The episode ends when no agent plays on.
    done = record.turn.length === 0;
  }
  if (
    !done &&
    !truncated &&
    environment.maxSteps !== undefined &&
    step >= environment.maxSteps
  ) {
    truncated = true;
  }
  if (record !== undefined && truncated) record.turn = [];
  parts.state.set("messages", observations);
  const scored = options.played
    ? undefined
    : await scoreRewards(environment, {
        ctx,
        hidden: parts.hidden,
        messages: () => parts.state.get("messages") as Message[],
        step,
        action,
        at,
        toolMessages,
        ...(base === undefined ? {} : { base }),
        reward,
        done,
        truncated,
        ...(options.judges === undefined ? {} : { judges: options.judges })
      });
  // The sum written as score-step.ts writes its kept step's, so equal to it.
  const kept = {
    at,
    reward: reward + (scored?.stepAdded ?? 0),
    ...(scored?.rubricWrites === undefined
      ? {}
      : { rubricWrites: scored.rubricWrites })
  };
  if (scored !== undefined) reward += scored.added;
  let agents: StepOutcome["agents"];
  let view = observations;
  if (record !== undefined && agent !== undefined && roster !== undefined) {
    const added = scored?.added ?? 0;
    record.rewards[agent]! += added;
    record.returns[agent]! += added;
    parts.state.set(AGENTS_KEY, record);
    // The session's reward, and so its return, is the first agent's: one
    // number summed everywhere (status, task statistics, validation), and
    // the side a self-play trainer usually trains. Every agent's is in
    // `rewards` and `agents.returns`.
    reward = record.rewards[roster[0]!]!;
    agents = {
      agent,
      turn: record.turn,
      rewards: record.rewards,
      done: record.done
    };
    if (!options.played) view = viewOf(observations, agent);
  }
  return {
    kept,
    observations: view,
    reward,
    done,
    truncated,
    ...(agents === undefined ? {} : { agents }),
    results,
    ...(scored === undefined ? {} : { reward_components: scored.components }),
    ...(exceptions.length > 0 ? { exceptions } : {})
  };
};

/** Runs one tool outside a step: no transcript entry, no reward or done. */
export const invokeTool = async (
  environment: Environment,
  parts: SessionParts,
  task: unknown,
  call: { id: string; tool: string; arguments: Record<string, unknown> },
  options: ExecuteOptions = {}
): Promise<CallOutcome> => {
  const { control } = createEpisodeControl();
  const [outcome] = await executeToolCalls(
    [
      {
        id: call.id,
        type: "function",
        function: { name: call.tool, arguments: call.arguments }
      }
    ],
    { ...parts, tools: environment.tools, task, episode: control },
    options
  );
  return outcome!;
};
