/** @module Runs decision trees: the pass loop, the options at a node, prompts, and the decision models (OpenAI-compatible, Workers AI, scripted). */

export { type PassResult, type RunProgress, runPass } from "./loop";
export { ModelError } from "./model-error";
export {
  type OpenAIModelConfig,
  openAIModel,
  openAIModelFromEnv
} from "./openai-model";
export { CHECK_TIMEOUT_MS, optionsAt, runIfTools } from "./options";
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
  type AiBindingLike,
  workersAIModel,
  workersAIModelFromEnv
} from "./workers-ai-model";
