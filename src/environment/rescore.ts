/**
 * @module Re-scoring one episode with a registered rubric: its logged
 * events replayed over memory parts, the rubric scored at each step as it
 * would have been then, beside what was answered. Runs anywhere; the
 * session reads the events and records (storage/rescore-read.ts).
 */

import type { AssistantMessage, Message } from "../messages/schema";
import type { RewardComponents } from "../protocol";
import type { EpisodeRubric } from "../rewards/episode";
import { type Judges, lendJudges } from "../rewards/judges";
import type { EpisodeStep, RewardContext, Rubric } from "../rewards/types";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import { describeError } from "../tools/content";
import type { Environment } from "./define-environment";
import { committedOnly, type LoggedEvent, ReplayedParts } from "./replay-parts";
import type { RegisteredRubric } from "./rescore-rubrics";
import {
  beforeEpisode,
  episodeSteps,
  type KeptStep,
  scoreEpisode
} from "./score-step";

/** What the session recorded beside the log (storage/rescore-rows.ts). */
export type RecordedItem =
  | { reset: { task?: unknown } }
  | { set: [key: string, value: unknown] }
  | { delete: string }
  | { lost: string }
  | { step: { step: number; at: number; reward: number } }
  /** After a step: the changes that follow are its episode rubric's, not its step rubric's. */
  | { episodeRubric: true };

/** One episode's retained events (the aborted left in) and records, in order. */
export interface LoggedEpisode {
  episode: number;
  events: readonly LoggedEvent[];
  records: readonly { seq: number; items: readonly RecordedItem[] }[];
  /** Set, with the records' size, when they were too large to read: nothing is scored. */
  tooLarge?: number;
}

/** What a rubric scored: its value and its report, named as a step's answer names them. */
export interface Rescored {
  total: number;
  components: RewardComponents;
  /** Why nothing was scored (the step's place was not recorded). */
  error?: string;
}

export interface StepRescore {
  step: number;
  /** The step as it was answered: its reward, ending and components. */
  answered: {
    reward: number;
    done: boolean;
    truncated: boolean;
    reward_components?: RewardComponents;
  };
  /** Absent for an episode rubric on every step but the one that ended the episode. */
  rescored?: Rescored;
}

export interface EpisodeRescore {
  episode: number;
  /** Whether its last step ended it (done or truncated). */
  ended: boolean;
  steps: StepRescore[];
  /** The sum of the answered rewards: the episode's return. */
  answered_return: number;
  /** The sum of the rescored totals. */
  total: number;
}

/**
 * Scores `rubric` over one episode. Each step sees the task, state,
 * transcript, hidden store and environment store as they stood when it was
 * scored; an episode rubric sees the steps as they were answered, on the
 * step that ended the episode. Nothing it writes goes anywhere.
 */
export const rescoreEpisode = async (
  environment: Environment,
  rubric: RegisteredRubric,
  logged: LoggedEpisode,
  judges?: Judges
): Promise<EpisodeRescore> => {
  const parts = new ReplayedParts(environment, {
    store: new MemoryStoreBackend(),
    state: new MemoryStateBackend(),
    transcript: new MemoryTranscriptBackend(),
    hidden: new MemoryHiddenStore()
  });
  const places = new Map<number, { at: number; reward: number }>();
  const kept: KeptStep[] = [];
  const steps: StepRescore[] = [];
  const records = logged.records;
  let next = 0;
  const apply = (item: RecordedItem) => {
    if ("reset" in item) parts.task = item.reset.task;
    else if ("set" in item) parts.hidden.set(...(item.set as [string, never]));
    else if ("delete" in item) parts.hidden.delete(item.delete);
    else if ("lost" in item) {
      parts.hidden.delete(item.lost);
      parts.hidden.lost.add(item.lost);
    } else if ("step" in item) places.set(item.step.step, item.step);
  };
  // What a step's rubrics wrote is recorded after its place (the episode
  // rubric's after a marker): each applies once that rubric has scored,
  // so a rubric sees the store as its kind of rubric found it then.
  const stepWrites: RecordedItem[] = [];
  const episodeWrites: RecordedItem[] = [];
  const applyAll = (items: RecordedItem[]) => {
    for (const item of items.splice(0)) apply(item);
  };
  const recordsUpTo = (seq: number) => {
    for (; next < records.length && records[next]!.seq <= seq; next++) {
      let into: RecordedItem[] | undefined;
      for (const item of records[next]!.items) {
        if (into === undefined) apply(item);
        else if ("episodeRubric" in item) into = episodeWrites;
        else into.push(item);
        if ("step" in item) into = stepWrites;
      }
    }
  };
  let ended = false;
  let afterStep = false;
  for (const event of committedOnly(logged.events)) {
    if (afterStep) {
      applyAll(stepWrites);
      applyAll(episodeWrites);
    }
    recordsUpTo(event.seq);
    afterStep = event.type === "step";
    if (!afterStep) {
      parts.apply(event);
      continue;
    }
    const answered = {
      reward: event.reward as number,
      done: event.done as boolean,
      truncated: event.truncated as boolean,
      ...(event.reward_components === undefined
        ? {}
        : { reward_components: event.reward_components as RewardComponents })
    };
    const number = event.step as number;
    const place = places.get(number);
    ended = answered.done || answered.truncated;
    const step: StepRescore = { step: number, answered };
    steps.push(step);
    if (logged.tooLarge !== undefined) {
      step.rescored = {
        total: 0,
        components: {},
        error: `This episode's records (${logged.tooLarge} bytes of hidden-store values) are more than one re-scoring reads.`
      };
      continue;
    }
    if (place === undefined) {
      step.rescored = {
        total: 0,
        components: {},
        error: `Step ${number} was not recorded for re-scoring.`
      };
      continue;
    }
    const ctx: RewardContext<never, unknown> = {
      task: parts.task,
      environment: parts.environment,
      hidden: parts.hidden,
      state: parts.state as never
    };
    const messages = parts.messages;
    kept.push({
      step: number,
      at: place.at,
      reward: place.reward,
      components: beforeEpisode(answered.reward_components)
    });
    if (rubric.kind === "rubric") {
      step.rescored = await scoreStep(
        rubric,
        messages,
        place.at,
        ctx,
        number,
        judges
      );
    } else if (ended) {
      // The step rubric scored before the episode rubric did.
      applyAll(stepWrites);
      step.rescored = await scoreEnded(
        rubric,
        episodeSteps(kept, messages),
        { ctx, done: answered.done, truncated: answered.truncated },
        judges
      );
    }
  }
  return {
    episode: logged.episode,
    ended,
    steps,
    answered_return: steps.reduce((sum, s) => sum + s.answered.reward, 0),
    total: steps.reduce((sum, s) => sum + (s.rescored?.total ?? 0), 0)
  };
};

/** A step rubric over the step's tool messages, as runStep scores it. */
const scoreStep = async (
  rubric: Rubric<never>,
  messages: readonly Message[],
  at: number,
  ctx: RewardContext<never, unknown>,
  step: number,
  judges: Judges | undefined
): Promise<Rescored> => {
  const action = messages[at] as AssistantMessage;
  const observations = messages.slice(at + 1).filter((m) => m.role === "tool");
  try {
    const args = { action, observations, ctx, step };
    const scored = await rubric.score(lendJudges(args, judges, step) as never);
    return {
      total: scored.value,
      components: Object.fromEntries(scored.entries)
    };
  } catch (thrown) {
    // A combinator written by hand may throw; the others catch their own.
    return { total: 0, components: {}, error: describeError(thrown) };
  }
};

const scoreEnded = async (
  rubric: EpisodeRubric<never>,
  steps: EpisodeStep[],
  rest: {
    ctx: RewardContext<never, unknown>;
    done: boolean;
    truncated: boolean;
  },
  judges: Judges | undefined
): Promise<Rescored> => {
  const scored = await scoreEpisode(rubric, { steps, ...rest }, judges);
  return { total: scored.value, components: scored.components };
};
