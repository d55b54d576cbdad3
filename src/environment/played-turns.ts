/**
 * @module Agents the environment plays itself: a scripted opponent, or a
 * simulated user asking the deployment's model. Their turns are taken in
 * the same mutation as the step (or reset) that handed them the turn, so
 * the caller's answer already holds their reply, and no crash can leave a
 * turn handed to the environment but never taken: it commits whole or not
 * at all. A played turn is a turn like any other (its action and
 * observations tagged with its agent in the transcript, its tools'
 * events its own) but no step of its own: it rides in the step before
 * it, whose number it carries, and the rubrics score only the steps
 * clients take.
 */

import { RoostError } from "../errors";
import {
  type AssistantMessage,
  AssistantMessageSchema,
  type Message
} from "../messages/schema";
import { viewOf } from "../protocol/agents";
import type { StateShape } from "../state/types";
import type { OpenAITool } from "../tools/json-schema";
import type { ChatTurn } from "../tree/types";
import { AGENTS_KEY, agentsOf, rosterOf } from "./agents";
import type { Environment } from "./define-environment";
import type { EpisodeContext } from "./episode-context";
import { episodeEnvironment } from "./episode-tools";
import {
  contextOf,
  runStep,
  type SessionParts,
  type StepOptions,
  type StepOutcome
} from "./hook-calls";
import { callHook } from "./hook-failure";

/** A configured model, as a played agent asks it. */
export interface PlayModel {
  readonly name: string;
  chat(messages: ChatTurn[]): Promise<string>;
}

/** What a played agent is given to choose its action. */
export interface Turn<Shape extends StateShape = StateShape, Task = unknown> {
  agent: string;
  /** The transcript as this agent sees it: its own messages and everyone's. */
  messages: Message[];
  /** The tools it may call. */
  tools: OpenAITool[];
  /** The session's parts, for what the agent knows (a hidden goal in the hidden store). */
  ctx: EpisodeContext<Shape, Task>;
  /**
   * The deployment's model named `name`, or its default one; undefined
   * when none is configured. Its endpoint and key stay on the server.
   */
  model(name?: string): PlayModel | undefined;
}

/** How the environment plays an agent: its action, or the text it says. */
export type Play<Shape extends StateShape = StateShape, Task = unknown> = (
  turn: Turn<Shape, Task>
) => AssistantMessage | string | Promise<AssistantMessage | string>;

/**
 * Played turns in a row before the runtime stops the chain as a bug of the
 * environment (two played agents handing the turn to each other forever).
 */
export const MAX_PLAYED_TURNS = 100;

/** A played model's tries and time limit per turn, as a judge's. */
const PLAY_LIMITS = { attempts: 2, timeoutMs: 60_000 };

const playOf = (environment: Environment, agent: string): Play | undefined =>
  environment.agents?.[agent]?.play as Play | undefined;

/** The played agent whose turn it is, if it is one's. */
const playedTurn = (
  environment: Environment,
  parts: SessionParts
): string | undefined => {
  const { turn } = agentsOf(parts);
  const [agent] = turn;
  return turn.length === 1 && playOf(environment, agent!) !== undefined
    ? agent
    : undefined;
};

/** What the played turns of one chain said and did. */
interface Played {
  observations: Message[];
  results: StepOutcome["results"];
  exceptions: NonNullable<StepOutcome["exceptions"]>;
  /** The last turn's outcome; absent when none was played. */
  last?: StepOutcome;
}

/**
 * Takes the played agents' turns while the turn is one of theirs and the
 * episode runs. `viewer` is whose view their messages are answered in
 * (the agent that stepped); undefined answers them all (a reset's). The
 * rewards they give are added to `sum`, by agent.
 */
export const playTurns = async (
  environment: Environment,
  episodeTools: readonly string[] | undefined,
  parts: SessionParts,
  task: unknown,
  step: number,
  viewer: string | undefined,
  sum: Record<string, number>,
  options: StepOptions
): Promise<Played> => {
  const played: Played = { observations: [], results: [], exceptions: [] };
  let last: StepOutcome | undefined;
  const episode = episodeEnvironment(environment, episodeTools);
  for (let taken = 0; ; taken++) {
    if (last !== undefined && (last.done || last.truncated)) break;
    const agent = playedTurn(environment, parts);
    if (agent === undefined) break;
    if (taken === MAX_PLAYED_TURNS) {
      throw new RoostError(
        "internal",
        `${environment.name}'s own agents took ${MAX_PLAYED_TURNS} turns in a row: the turn must come back to an agent a client plays.`
      );
    }
    const own = episodeEnvironment(episode, environment.agents?.[agent]?.tools);
    const play = playOf(environment, agent)!;
    // Before it chooses: what its play emits or stores is its own.
    options.onTurn?.(agent);
    const chosen = await callHook(environment.name, "play", () =>
      play({
        agent,
        // Read only if the play looks: a scripted move costs no transcript.
        get messages() {
          return viewOf(parts.state.get("messages") as Message[], agent);
        },
        tools: [...own.toolSchemas],
        ctx: contextOf(parts, task, options),
        model: (name) => {
          const m = options.judges?.model(name, PLAY_LIMITS);
          return m && { name: m.name, chat: (turn) => m.ask(turn, () => {}) };
        }
      })
    );
    const parsed = AssistantMessageSchema().safeParse(
      typeof chosen === "string"
        ? { role: "assistant", content: chosen }
        : chosen
    );
    if (!parsed.success) {
      throw new RoostError(
        "internal",
        `The play of ${environment.name}'s agent "${agent}" returned no assistant message: ${parsed.error.issues[0]?.message}.`
      );
    }
    // Parsed and checked as the transcript takes any message: the step's
    // own action was checked by its caller, this one by nobody yet.
    const { actionChecked: _, ...unchecked } = options;
    last = await runStep(own, parts, task, step, parsed.data, {
      ...unchecked,
      agent,
      played: true
    });
    for (const [a, r] of Object.entries(last.agents!.rewards)) {
      sum[a] = (sum[a] ?? 0) + r;
    }
    // A played step answers every observation: it is filtered here.
    const said = [{ ...parsed.data, agent }, ...last.observations];
    played.observations.push(
      ...(viewer === undefined ? said : viewOf(said, viewer))
    );
    played.results.push(...last.results);
    played.exceptions.push(...(last.exceptions ?? []));
  }
  if (last === undefined) return played;
  parts.state.set(AGENTS_KEY, { ...agentsOf(parts), rewards: sum });
  return { ...played, last };
};

/**
 * The step's outcome with the played turns after it: their messages in
 * the stepping agent's view, rewards summed since it acted, and where
 * the episode stands after the last of them.
 */
export const withPlayed = async (
  environment: Environment,
  episodeTools: readonly string[] | undefined,
  parts: SessionParts,
  task: unknown,
  step: number,
  out: StepOutcome,
  options: StepOptions
): Promise<StepOutcome> => {
  if (out.agents === undefined || out.done || out.truncated) return out;
  const sum = { ...out.agents.rewards };
  const played = await playTurns(
    environment,
    episodeTools,
    parts,
    task,
    step,
    out.agents.agent,
    sum,
    options
  );
  const last = played.last;
  if (last === undefined) return out;
  const exceptions = [...(out.exceptions ?? []), ...played.exceptions];
  return {
    ...out,
    observations: [...out.observations, ...played.observations],
    reward: sum[rosterOf(environment)![0]!]!,
    done: last.done,
    truncated: last.truncated,
    results: [...out.results, ...played.results],
    agents: { ...last.agents!, agent: out.agents.agent, rewards: sum },
    ...(exceptions.length > 0 ? { exceptions } : {})
  };
};
