/**
 * @module What the checks play on: a `Target` (an environment as the
 * checks see it, with a way to open sessions of it) and its
 * `ValidatedSession`s. The local target wraps `createLocalSession`;
 * http-target.ts serves the same over a running server, so one set of
 * checks judges both.
 */

import type { Environment } from "../environment/define-environment";
import type { OraclePolicy } from "../environment/validation";
import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import type { AssistantMessage, Message } from "../messages/schema";
import type { OpenAITool } from "../protocol";
import { createLocalSession, type LocalSession } from "../runner/local-session";

/** Which task an episode plays: a dataset index (of a split), or the default task. */
export interface TaskChoice {
  task_index?: number;
  split?: string;
}

export interface StepShown {
  observations: Message[];
  reward: number;
  /** Done or truncated: the episode is over either way. */
  done: boolean;
}

/** One session, local or on a server, as the checks drive it. */
export interface ValidatedSession {
  reset(
    task: TaskChoice
  ): Promise<{ observations: Message[]; tools: OpenAITool[] }>;
  step(action: AssistantMessage): Promise<StepShown>;
  /** Stores, hidden store, state and transcript as JSON: what a reset must leave fresh. */
  snapshot(): Promise<JsonValue>;
  /** The task the last reset resolved: what an oracle is handed. */
  task(): unknown;
  /** A copy that goes on from here; only a server's sessions fork. */
  fork?(): Promise<ValidatedSession>;
}

/** How the oracle check is judged: the environment's own config, or what a server says of it. */
export interface OracleConfig {
  oracle?: (task: unknown) => OraclePolicy;
  noOracle?: string;
  /** Set when a server lists an oracle the validator was not given (its module was not passed). */
  oracleElsewhere?: boolean;
  maxReturn: number;
}

/** An environment as the checks see it. */
export interface Target {
  name: string;
  /** Where the sessions run: `local`, or the server's URL. */
  where: string;
  open(): Promise<ValidatedSession>;
  /** The declared tool schemas (every tool, whichever an episode offers). */
  toolSchemas: readonly OpenAITool[];
  /** A tool's own input schema, when the environment's code is at hand. */
  toolInput?(
    name: string
  ): { safeParse(v: unknown): { success: boolean } } | undefined;
  /** Size of the default dataset (undefined: generated), when it has one. */
  dataset?: { size?: number };
  splits: { name: string; size?: number }[];
  maxSteps: number;
  oracle: OracleConfig;
  /** Undefined when `error` is the refusal a step after the end must get; else what was wrong with it. */
  refusal(error: unknown): string | undefined;
  /** Deletes what the checks made (a server's sessions). */
  finish(): Promise<void>;
}

const message = (error: unknown) =>
  error instanceof Error ? error.message : String(error);

/** Stores, state and transcript of a local session as JSON. */
const snapshotOf = (s: LocalSession): JsonValue => {
  const { environment, hidden, state } = s.parts;
  return {
    store: environment.toJSON() as unknown as JsonValue,
    hidden: Object.fromEntries(hidden.keys().map((k) => [k, hidden.get(k)!])),
    state: state.toJSON(),
    transcript: state.get("messages") as JsonValue
  };
};

/** A local session as the checks drive it; `session` is exposed for the local-only leakage check. */
export const localSession = (
  session: LocalSession
): ValidatedSession & { local: LocalSession } => ({
  local: session,
  reset: (task) => session.reset(task),
  step: async (action) => {
    const out = await session.step(action);
    return {
      observations: out.observations,
      reward: out.reward,
      done: out.done || out.truncated
    };
  },
  snapshot: async () => snapshotOf(session),
  task: () => session.task
});

/** An environment's code, played on local sessions in this process. */
export const localTarget = (environment: Environment): Target => {
  const config = environment.validation ?? {};
  return {
    name: environment.name,
    where: "local",
    open: async () => localSession(createLocalSession(environment)),
    toolSchemas: environment.toolSchemas,
    toolInput: (name) => environment.tools.get(name)?.input,
    ...(environment.dataset === undefined
      ? {}
      : {
          dataset:
            environment.dataset.size === undefined
              ? {}
              : { size: environment.dataset.size }
        }),
    splits: Object.entries(environment.splits ?? {}).map(([name, split]) =>
      split.size === undefined ? { name } : { name, size: split.size }
    ),
    maxSteps: environment.maxSteps ?? config.maxSteps ?? 50,
    oracle: {
      ...(config.oracle === undefined
        ? {}
        : { oracle: config.oracle.bind(config) }),
      ...(config.noOracle === undefined ? {} : { noOracle: config.noOracle }),
      maxReturn: config.maxReturn ?? 1
    },
    refusal: (error) =>
      error instanceof RoostError ||
      (error as { name?: string }).name === "RoostError"
        ? undefined
        : `the step threw ${message(error)}, not a refusal`,
    finish: async () => {}
  };
};
