/**
 * @module Everything of Roost that runs anywhere: environments, tools, state,
 * stores, messages, trees and `createLocalSession`. Nothing here imports
 * `cloudflare:workers`, so plain Node (unit tests of an environment, a
 * script) can use it; `roost-edge` adds the Workers host, `createRoost`.
 */

export type {
  EpisodeSession,
  EpisodeSessionOptions,
  EpisodeStatus
} from "./environment/episode-session";
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
  generated,
  type Observations,
  type OraclePolicy,
  type Registry,
  type ResetResult,
  type StepContext,
  type StepOutcome,
  type StepResult,
  type ThrownByTool,
  type ValidationConfig
} from "./environment/index";
export type {
  Completer,
  McpOffer,
  OfferContext,
  PromptDefinition,
  PromptMessage,
  ResourceBody,
  ResourceDefinition,
  ResourceTemplateDefinition
} from "./environment/mcp-offer";
export type {
  Play,
  PlayModel,
  Turn
} from "./environment/played-turns";
export {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  RoostError
} from "./errors";
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
export {
  type Component,
  type DefaultVerdict,
  defineEpisodeRubric,
  defineRubric,
  type EpisodeRewardArgs,
  type EpisodeRubric,
  type EpisodeRubricOptions,
  type EpisodeStep,
  type GateOptions,
  gate,
  type JudgeOptions,
  type JudgePrompt,
  judge,
  type RewardFn,
  type Rubric,
  type StepRewardArgs,
  sequence,
  type WeightedSumOptions,
  weightedSum
} from "./rewards/index";
export {
  ModelError,
  openAIModel,
  type PartialDecision,
  type ScriptedModelOptions,
  scriptedModel,
  withRetries,
  workersAIModel
} from "./runner/index";
export {
  createLocalSession,
  type LocalEvent,
  type LocalRun,
  type LocalRunOptions,
  type LocalSession,
  type LocalSessionOptions
} from "./runner/local-session";
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
  type Entry,
  type EnvironmentReader,
  type EnvironmentStore,
  error,
  type HiddenStore,
  type LogLevel,
  log,
  type Mapping,
  mapObjects,
  mappedFields,
  PAYLOAD_TYPES,
  progress,
  type Result,
  result,
  status,
  text,
  type Update,
  warning
} from "./store/index";
export {
  type CallerClient,
  type CallOutcome,
  CallRefused,
  type ClientRequest,
  content,
  type IsolateRunOptions,
  type IsolateStarter,
  type OpenAITool,
  type SqlExec,
  type Tool,
  type ToolContent,
  type ToolContext,
  type ToolException,
  tool
} from "./tools/index";
export {
  type Atlas,
  type BranchConfig,
  type CallOptions,
  type ChatTurn,
  type Decision,
  type DecisionModel,
  type DecisionRequest,
  type HistoryMessage,
  type PromptTasks,
  type ResolvedTree,
  type TaskRecord,
  TEXT_RESPONSE,
  type TextRequest,
  type ToolEntry,
  type ToolWithFollowUps,
  type TreeConfig,
  type TreeData,
  type TreeNode,
  type TreeOption,
  type UnavailableOption
} from "./tree/index";
