/** @module Environment definitions, datasets, the registry and the episode runner. */

export { type Dataset, dataset, generated } from "./dataset";
export {
  defineEnvironment,
  type Environment,
  type EnvironmentConfig,
  type EpisodeContext,
  type Evaluation,
  type Observations,
  type ResetResult,
  type StepContext,
  type StepResult
} from "./define-environment";
export {
  invokeTool,
  NO_TOOL_CALLS,
  runReset,
  runStep,
  type SessionParts,
  type StepOutcome,
  type ThrownByTool
} from "./hook-calls";
export {
  createRegistry,
  type EnvironmentInfo,
  type Registry
} from "./registry";
export { resolveTask } from "./task";
export type {
  OracleAction,
  OraclePolicy,
  ValidationConfig
} from "./validation";
