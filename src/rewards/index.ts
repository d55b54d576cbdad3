/** @module Rewards as rubrics: named, weighted components scored each step, and episode rubrics scored at the end. */

export { COMPONENT_NAME_RE } from "./component";
export {
  defineEpisodeRubric,
  discount,
  type EpisodeRubric,
  type EpisodeRubricOptions
} from "./episode";
export { type GateOptions, gate } from "./gate";
export {
  type DefaultVerdict,
  DefaultVerdictSchema,
  type JudgeOptions,
  type JudgePrompt,
  judge
} from "./judge";
export type {
  JudgeLimits,
  JudgeModel,
  Judges,
  Verdict,
  VerdictKey
} from "./judges";
export { sequence } from "./sequence";
export type {
  Component,
  EpisodeRewardArgs,
  EpisodeStep,
  RewardContext,
  RewardFn,
  Rubric,
  Scored,
  StepRewardArgs
} from "./types";
export {
  defineRubric,
  type WeightedSumOptions,
  weightedSum
} from "./weighted-sum";
