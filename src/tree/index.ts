/** @module Decision trees (Elysia), the definition: config schema, resolved tree, tree data and its helpers. */

export {
  DEFAULT_ROOT_INSTRUCTION,
  followUpInstruction,
  type ParsedTreeConfig,
  type ResolvedTree,
  ROOT_ID,
  resolveTree,
  TEXT_RESPONSE,
  TEXT_RESPONSE_DESCRIPTION,
  TEXT_RESPONSE_INPUTS,
  TreeConfigSchema,
  type TreeNode
} from "./define-tree";
export {
  addToHistory,
  clearErrors,
  copyTreeData,
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
  ChatTurn,
  Decision,
  DecisionModel,
  DecisionRequest,
  HistoryMessage,
  PromptTasks,
  TaskRecord,
  TextRequest,
  ToolEntry,
  ToolWithFollowUps,
  TreeConfig,
  TreeData,
  TreeOption,
  UnavailableOption
} from "./types";
