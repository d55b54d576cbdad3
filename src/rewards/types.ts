/** @module What reward functions and rubrics are given and give back. */

import type {
  AssistantMessage,
  Message,
  ToolMessage
} from "../messages/schema";
import type { RewardComponent, RewardComponents } from "../protocol";
import type { StateAccess, StateShape } from "../state/types";
import type { EnvironmentStore, HiddenStore } from "../store/types";

/**
 * What a reward function may read of the episode: what `evaluate` gets
 * (an environment's EpisodeContext is one), less what only steps do.
 */
export interface RewardContext<Shape extends StateShape, Task> {
  task: Task;
  environment: EnvironmentStore;
  hidden: HiddenStore;
  state: StateAccess<Shape>;
}

/** What a step's reward function sees: what `evaluate` sees, and the step's number. */
export interface StepRewardArgs<
  Shape extends StateShape = never,
  Task = unknown
> {
  /** The action the step took: its text (an answer in words) and its tool calls. */
  action: AssistantMessage;
  /** The step's tool messages (empty for an action without tool calls). */
  observations: ToolMessage[];
  ctx: RewardContext<Shape, Task>;
  /** 1-based number of this step in the episode. */
  step: number;
}

/** One step of an ended episode, as an episode rubric reads it. */
export interface EpisodeStep {
  step: number;
  action: AssistantMessage;
  /** What the step observed, as appended to the transcript. */
  observations: Message[];
  /** The step's reward as answered (the last step's before the episode score). */
  reward: number;
  /** The step's components as answered; `{}` when it had no step rubric. */
  components: RewardComponents;
}

/** What an episode reward function sees when the episode ends. */
export interface EpisodeRewardArgs<
  Shape extends StateShape = never,
  Task = unknown
> {
  /** Every step of the episode, step 1 first. */
  steps: EpisodeStep[];
  ctx: RewardContext<Shape, Task>;
  done: boolean;
  truncated: boolean;
}

/**
 * A reward function. A boolean reads as 1 or 0, so a check is written as
 * one; anything but a finite number or a boolean is reported as the
 * component's error, as a throw is.
 */
export type RewardFn<Args> = (
  args: Args
) => number | boolean | Promise<number | boolean>;

/** Flat names relative to a rubric, each with its report, parents first. */
export type Entries = [string, RewardComponent][];

/** What scoring a rubric gives: its value and the reports of what is under it. */
export interface Scored {
  value: number;
  entries: Entries;
}

/**
 * A node of a rubric: `defineRubric`, `weightedSum`, `gate` or `sequence`.
 * `Args` is what its reward functions take.
 */
export interface Rubric<Args> {
  readonly kind: "rubric";
  /** The relative names below this node, in report order. */
  readonly paths: readonly string[];
  /**
   * Those of `paths` whose value never reaches this node's (weight 0 in a
   * weighted sum, or below such a component): metrics, reported and not
   * added. Optional so a rubric written by hand need not say; absent
   * reads as none.
   */
  readonly metrics?: readonly string[];
  score(args: Args): Promise<Scored>;
  /**
   * Never set: `Args` in a position TypeScript reads contravariantly, so a
   * rubric for one environment's state does not fit another's.
   */
  readonly _args?: (args: Args) => void;
}

/** A component: a reward function or a rubric below it. */
export type Component<Args> = RewardFn<Args> | Rubric<Args>;
