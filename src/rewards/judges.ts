/**
 * @module What a runtime lends a rubric's judges for one step: a way to ask
 * a configured model, and the step's kept verdicts. Carried on the reward
 * args under a symbol, with the component's path, so a judge knows where
 * in the report it sits without reward functions seeing a new field.
 */

import type { JsonValue } from "../json";
import type { ChatTurn } from "../tree/types";

/** Tries and the time limit of one judge's question, the first try included. */
export interface JudgeLimits {
  attempts: number;
  timeoutMs: number;
}

/** A configured model, as a judge asks it. */
export interface JudgeModel {
  /** The model's own name (e.g. `openai:gpt-4o-mini`): part of a verdict's key. */
  readonly name: string;
  /**
   * The model's answer to `messages`. `check` throws on an answer that
   * will not do (not JSON, off its schema); it is then asked again, as a
   * failed call is, up to the limits' attempts, and the last error thrown.
   */
  ask(messages: ChatTurn[], check: (text: string) => void): Promise<string>;
}

/** Where a verdict belongs: the step, the component's path in the report, and the question's hash. */
export interface VerdictKey {
  step: number;
  path: string;
  /** SHA-256 of the configured name asked for, the model's own name and the exact messages (the schema is in them). */
  hash: string;
}

/** A judge's answer as kept: the JSON object it parsed to, the text it came in, and who answered. */
export interface Verdict {
  value: JsonValue;
  text: string;
  model: string;
}

/**
 * What a session lends its judges. `recall` and `keep` are the step's
 * verdicts: a session keeps them durably, so a step retried after a
 * crash finds its verdict and does not ask again.
 */
export interface Judges {
  /**
   * The configured model named `name`, or the default one when it is
   * undefined; undefined when there is none. The client never names it:
   * only the environment's code does.
   */
  model(name: string | undefined, limits: JudgeLimits): JudgeModel | undefined;
  recall(key: VerdictKey): Verdict | undefined;
  keep(key: VerdictKey, verdict: Verdict): void;
  /**
   * `ask`'s verdict, unless the same question (episode and key) is being
   * asked already: then that one's, so callers scoring the same step at
   * once (two rescores) pay for one question. Without it, each asks.
   */
  once?(key: VerdictKey, ask: () => Promise<Verdict>): Promise<Verdict>;
}

/** What a component is scored within: the runtime's judges, the step and its own path. */
export interface Scoring {
  judges: Judges;
  step: number;
  /** Dotted, as the report names the component (`answer.judge`, `episode.judge`). */
  path: string;
}

const SCORING = Symbol("roost.scoring");

/** The reward args a rubric is scored with, lent the runtime's judges for step `step`. */
export const lendJudges = <Args>(
  args: Args,
  judges: Judges | undefined,
  step: number
): Args =>
  judges === undefined
    ? args
    : ({ ...args, [SCORING]: { judges, step, path: "" } } as Args);

/**
 * The args as component `name` below the current one gets them: the same,
 * with the path one name longer. Args without judges are passed as they
 * are, so a rubric scored without them copies nothing.
 */
export const below = <Args>(args: Args, name: string): Args => {
  const scoring = scoringOf(args);
  if (scoring === undefined) return args;
  const path = scoring.path === "" ? name : `${scoring.path}.${name}`;
  return { ...args, [SCORING]: { ...scoring, path } } as Args;
};

/** The judges and path the args carry, if a runtime lent any. */
export const scoringOf = (args: unknown): Scoring | undefined =>
  typeof args === "object" && args !== null
    ? ((args as { [SCORING]?: Scoring })[SCORING] ?? undefined)
    : undefined;
