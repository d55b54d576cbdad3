/** @module A step scored with the environment's rubrics: what the default and custom steps add to their reward. */

import type { JsonValue } from "../json";
import type {
  AssistantMessage,
  Message,
  ToolMessage
} from "../messages/schema";
import type { RewardComponents } from "../protocol";
import { scoreComponent } from "../rewards/component";
import { discount, type EpisodeRubric } from "../rewards/episode";
import { type Judges, lendJudges } from "../rewards/judges";
import type {
  EpisodeRewardArgs,
  EpisodeStep,
  RewardContext
} from "../rewards/types";
import type { HiddenStore } from "../store/types";
import type { Environment, EpisodeContext } from "./define-environment";
import { callHook } from "./hook-failure";

/**
 * Where an episode rubric's steps are kept until the episode ends: hidden
 * keys `roost:trajectory:<n>`, chunk n holding steps n·KEPT_CHUNK + 1 to
 * (n + 1)·KEPT_CHUNK. The hidden store is the episode's: a reset clears
 * it, a fork copies it, a step's commit writes it with the rest, and the
 * model never reads it. Written only by environments with an episode
 * rubric. A step rewrites its own chunk, not every step before it (one
 * list of the whole episode made its n-th step write n steps: quadratic
 * in bytes, and past some thousands of steps more than a row holds).
 */
export const TRAJECTORY_KEY = "roost:trajectory";

/** Steps a chunk holds: a step rewrites at most this many, one row as before. */
export const KEPT_CHUNK = 64;

/** Whether `key` keeps an episode rubric's steps (the bare key: a whole list, as kept before chunks). */
export const isTrajectoryKey = (key: string): boolean =>
  key === TRAJECTORY_KEY || key.startsWith(`${TRAJECTORY_KEY}:`);

const chunkKey = (step: number): string =>
  `${TRAJECTORY_KEY}:${Math.floor(Math.max(step - 1, 0) / KEPT_CHUNK)}`;

const keptIn = (hidden: HiddenStore, key: string): KeptStep[] =>
  (hidden.get(key) as unknown as KeptStep[] | undefined) ?? [];

/** Every kept step of the episode, in step order, and the keys they were under. */
const readKept = (
  hidden: HiddenStore
): { steps: KeptStep[]; keys: string[] } => {
  const keys = hidden.keys().filter(isTrajectoryKey);
  const steps = keys
    .flatMap((key) => keptIn(hidden, key))
    .sort((a, b) => a.step - b.step);
  return { steps, keys };
};

/**
 * Keeps `steps` as an episode not yet ended keeps them: what a fork at a
 * past step rebuilds from the log and its records (layers/branching/rewind.ts).
 */
export const keepSteps = (
  hidden: HiddenStore,
  steps: readonly KeptStep[]
): void => {
  const chunks = new Map<string, KeptStep[]>();
  for (const step of steps) {
    const key = chunkKey(step.step);
    chunks.set(key, [...(chunks.get(key) ?? []), step]);
  }
  for (const [key, chunk] of chunks)
    hidden.set(key, chunk as unknown as JsonValue);
};

/** The components a step answered before its episode score: what an episode rubric's steps carry. */
export const beforeEpisode = (
  components: RewardComponents = {}
): RewardComponents =>
  Object.fromEntries(
    Object.entries(components).filter(
      ([name]) => name !== "episode" && !name.startsWith("episode.")
    )
  );

/** One step as kept for the episode rubric; its messages stay in the transcript. */
export interface KeptStep {
  step: number;
  /** Where the step's action is in the transcript; its observations follow. */
  at: number;
  reward: number;
  components: RewardComponents;
}

/** A hidden key as it stands: `[key]` absent, `[key, value]` holding a value. */
export type HiddenState = [key: string] | [key: string, value: JsonValue];

/**
 * What a step's rubrics wrote to the hidden store as they scored it: each
 * key they touched as it stood before the step rubric, the keys the step
 * rubric wrote as it left them, and those the episode rubric wrote (on
 * the step that ended the episode) as it left them. Re-scoring gives each
 * kind of rubric the store as the step's own rubric of that kind found it,
 * so a rubric that writes is re-scored as exactly as one that only reads
 * (rescore-rows.ts, rescore.ts).
 */
export interface RubricWrites {
  before: HiddenState[];
  step: HiddenState[];
  episode?: HiddenState[];
}

const stateOf = (hidden: HiddenStore, key: string): HiddenState =>
  hidden.has(key) ? [key, hidden.get(key) as JsonValue] : [key];

/**
 * The hidden store as rubrics get it: their writes reach it, and each
 * key's state before the first is remembered. `turn` ends one rubric's
 * turn (the step's, then the episode's), keeping the keys it wrote as
 * it left them.
 */
const watched = (
  hidden: HiddenStore
): {
  store: HiddenStore;
  turn: () => void;
  writes: () => RubricWrites | undefined;
} => {
  const before = new Map<string, HiddenState>();
  let touched = new Set<string>();
  const turns: HiddenState[][] = [];
  const touch = (key: string) => {
    if (!before.has(key)) before.set(key, stateOf(hidden, key));
    touched.add(key);
  };
  const store: HiddenStore = {
    get: (key) => hidden.get(key),
    has: (key) => hidden.has(key),
    keys: () => hidden.keys(),
    set: (key, value) => {
      touch(key);
      hidden.set(key, value);
    },
    delete: (key) => {
      touch(key);
      return hidden.delete(key);
    }
  };
  const turn = () => {
    turns.push([...touched].map((key) => stateOf(hidden, key)));
    touched = new Set();
  };
  const writes = () => {
    if (before.size === 0) return undefined;
    const [step = [], episode = []] = turns;
    return {
      before: [...before.values()],
      step,
      ...(episode.length === 0 ? {} : { episode })
    };
  };
  return { store, turn, writes };
};

export interface StepToScore {
  ctx: EpisodeContext<never, unknown>;
  hidden: HiddenStore;
  /** Reads the transcript (the episode rubric's observations). */
  messages: () => Message[];
  step: number;
  action: AssistantMessage;
  /** How many messages the transcript held before this step's action. */
  at: number;
  toolMessages: ToolMessage[];
  /** What `evaluate` or a custom `step` returned, reported under its name. */
  base?: { name: "evaluate" | "step"; reward: number };
  /** The reward the step had before its rubrics: evaluate's or step's, and the tools'. */
  reward: number;
  done: boolean;
  truncated: boolean;
  /** What the runtime lends judges (rewards/judge.ts); without it a judge reports that no model is configured. */
  judges?: Judges;
}

/**
 * What the rubrics add to a step's reward, and the components to report;
 * undefined for an environment without rubrics, whose steps answer as
 * they always did.
 */
export const scoreRewards = async (
  env: Environment,
  s: StepToScore
): Promise<
  | {
      added: number;
      components: RewardComponents;
      /** What the step rubric alone added: the step's reward as kept, before an episode score. */
      stepAdded: number;
      /** What the rubrics wrote to the hidden store, if anything. */
      rubricWrites?: RubricWrites;
    }
  | undefined
> => {
  if (env.rubric === undefined && env.episodeRubric === undefined) {
    return undefined;
  }
  const hidden = watched(s.hidden);
  const ctx = { ...s.ctx, hidden: hidden.store };
  const written = () => {
    const writes = hidden.writes();
    return writes === undefined ? {} : { rubricWrites: writes };
  };
  const components: RewardComponents = {};
  if (s.base !== undefined) components[s.base.name] = s.base.reward;
  let added = 0;
  if (env.rubric !== undefined) {
    const args = {
      action: s.action,
      observations: s.toolMessages,
      ctx,
      step: s.step
    };
    const rubric = env.rubric;
    const scored = await callHook(env.name, "rubric", () =>
      rubric.score(lendJudges(args, s.judges, s.step) as never)
    );
    added += scored.value;
    for (const [name, entry] of scored.entries) components[name] = entry;
  }
  hidden.turn();
  const episode = env.episodeRubric;
  if (episode === undefined)
    return { added, components, stepAdded: added, ...written() };
  const self: KeptStep = {
    step: s.step,
    at: s.at,
    reward: s.reward + added,
    components: { ...components }
  };
  if (!s.done && !s.truncated) {
    const key = chunkKey(s.step);
    s.hidden.set(key, [...keptIn(s.hidden, key), self] as unknown as JsonValue);
    return { added, components, stepAdded: added, ...written() };
  }
  const kept = readKept(s.hidden);
  const steps = episodeSteps([...kept.steps, self], s.messages());
  const scored = await callHook(env.name, "episodeRubric", () =>
    scoreEpisode(
      episode,
      { steps, ctx, done: s.done, truncated: s.truncated },
      s.judges
    )
  );
  hidden.turn();
  Object.assign(components, scored.components);
  // The episode is over: nothing more reads the kept steps.
  for (const key of kept.keys) s.hidden.delete(key);
  return {
    added: added + scored.value,
    components,
    stepAdded: added,
    ...written()
  };
};

/**
 * An episode rubric over an ended episode's steps: its value, and its
 * report as `episode` (with `per_step` under a discount) and
 * `episode.<name>`. Re-scoring calls it as a step's end does.
 */
export const scoreEpisode = async (
  episode: EpisodeRubric<never>,
  args: Omit<EpisodeRewardArgs<never, unknown>, "ctx"> & {
    ctx: RewardContext<never, unknown>;
  },
  judges?: Judges
): Promise<{ value: number; components: RewardComponents }> => {
  // A judge's verdict is kept under the episode's last step.
  const last = args.steps.at(-1)?.step ?? 0;
  const scored = await scoreComponent(
    "episode",
    episode.rubric,
    lendJudges(args, judges, last) as never
  );
  const [[, own], ...below] = scored.entries as [
    [string, RewardComponents[string]],
    ...[string, RewardComponents[string]][]
  ];
  const components: RewardComponents = {
    episode:
      episode.gamma === undefined || typeof own !== "number"
        ? own
        : {
            value: own,
            per_step: discount(own, args.steps.length, episode.gamma)
          }
  };
  for (const [name, entry] of below) components[name] = entry;
  return { value: scored.value, components };
};

/** The kept steps with their actions and observations read back from the transcript. */
export const episodeSteps = (
  kept: readonly KeptStep[],
  messages: readonly Message[]
): EpisodeStep[] =>
  kept.map((k, i) => ({
    step: k.step,
    action: messages[k.at] as AssistantMessage,
    observations: messages.slice(k.at + 1, kept[i + 1]?.at ?? messages.length),
    reward: k.reward,
    components: k.components
  }));
