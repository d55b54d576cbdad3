/** @module Decision trees (Elysia): definition, tree data helpers and decision models. */

export {
  DEFAULT_ROOT_INSTRUCTION,
  optionsAt,
  type ParsedTreeConfig,
  type ResolvedTree,
  ROOT_ID,
  resolveTree,
  runIfTools,
  TEXT_RESPONSE,
  TEXT_RESPONSE_DESCRIPTION,
  TEXT_RESPONSE_INPUTS,
  TreeConfigSchema,
  type TreeNode
} from "./define-tree";
export { type PassResult, type RunProgress, runPass } from "./loop";
export { ModelError } from "./model-error";
export {
  type OpenAIModelConfig,
  openAIModel,
  openAIModelFromEnv
} from "./openai-model";
export {
  decisionMessages,
  decisionSchema,
  parseDecision,
  textMessages
} from "./prompt";
export { type RetryOptions, withRetries } from "./retry";
export {
  type PartialDecision,
  type Script,
  type ScriptedModelOptions,
  scriptedModel
} from "./scripted-model";
export {
  addToHistory,
  clearErrors,
  conversationHistory,
  openTasks,
  recordError,
  recordTask,
  renderErrors,
  renderTasksCompleted,
  treeCount,
  updateLastTask
} from "./tree-data";
export type {
  Atlas,
  BranchConfig,
  CallOptions,
  Decision,
  DecisionModel,
  DecisionRequest,
  HistoryMessage,
  PromptTasks,
  TaskRecord,
  TextRequest,
  TreeConfig,
  TreeData,
  TreeOption,
  UnavailableOption
} from "./types";
export {
  type AiBindingLike,
  workersAIModel,
  workersAIModelFromEnv
} from "./workers-ai-model";
