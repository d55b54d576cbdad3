/** @module Roost's public API: define environments, tools and state; host them with createRoost. */

export {
  createRegistry,
  type Dataset,
  dataset,
  defineEnvironment,
  type Environment,
  type EnvironmentConfig,
  type EnvironmentInfo,
  type EpisodeContext,
  type Evaluation,
  type Observations,
  type Registry,
  type StepContext,
  type StepResult
} from "./environment/index";
export {
  createLocalSession,
  type EpisodeStatus,
  type LocalSession
} from "./environment/local-session";
export {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  RoostError
} from "./errors";
export type { AppEnv, RoostBindings } from "./http/env";
export type { JsonObject, JsonValue } from "./json";
export {
  type AssistantMessage,
  contentText,
  type Message,
  systemMessage,
  type ToolCall,
  type ToolMessage,
  toolCalls,
  toolResponse,
  userMessage
} from "./messages/index";
export { DEFAULT_LIMITS, type Limits } from "./protocol/limits";
export { createRoost, type Roost, type RoostConfig } from "./roost";
export type { ModelFactory } from "./session/models";
export type { RoostOptions } from "./session/options";
export {
  defineState,
  type HandlerName,
  mergeLists,
  replaceValues,
  type StateAccess,
  type StateDefinition
} from "./state/index";
export {
  type EnvironmentStore,
  error,
  type HiddenStore,
  type Result,
  result,
  status,
  text,
  type Update,
  warning
} from "./store/index";
export {
  type OpenAITool,
  type SqlExec,
  type Tool,
  type ToolContext,
  tool
} from "./tools/index";
export {
  type Atlas,
  type BranchConfig,
  type CallOptions,
  type Decision,
  type DecisionModel,
  type DecisionRequest,
  type HistoryMessage,
  ModelError,
  openAIModel,
  type PartialDecision,
  type PromptTasks,
  type ResolvedTree,
  type ScriptedModelOptions,
  scriptedModel,
  type TaskRecord,
  TEXT_RESPONSE,
  type TextRequest,
  type TreeConfig,
  type TreeData,
  type TreeNode,
  type TreeOption,
  type UnavailableOption,
  withRetries,
  workersAIModel
} from "./tree/index";
