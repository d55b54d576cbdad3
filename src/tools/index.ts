/** @module Tools: definitions, the model's JSON schema, and execution. */

export { describeIssues } from "../issues";
export {
  type CallerClient,
  CallInterrupted,
  CallRefused,
  CLIENT_METHODS,
  type ClientMethod,
  type ClientRequest,
  InputRequired,
  MissingCapability,
  missingCapabilities
} from "./ask";
export { content, type ToolContent } from "./content";
export {
  type Tool,
  type ToolConfig,
  type ToolInput,
  tool
} from "./define-tool";
export {
  DEFAULT_TOOL_CONTENT_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  type ExecuteOptions,
  type ExecutionScope,
  executeToolCalls
} from "./execute";
export { type OpenAITool, openAITool, parametersSchema } from "./json-schema";
export type { MergeableState } from "./outputs";
export type {
  CallOutcome,
  EpisodeControl,
  ExecutionHooks,
  IsolateRunOptions,
  IsolateStarter,
  OutputToState,
  SqlExec,
  ToolContext,
  ToolException,
  ToolRun
} from "./types";
