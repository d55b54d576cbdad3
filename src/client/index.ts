/** @module The Roost client for browsers and Node: HTTP, the session WebSocket, rollouts and policies. */

export type { Message } from "../messages/schema";
export type {
  ActionInput,
  EnvironmentInfo,
  ModelInfo,
  OpenAITool,
  Scope,
  SessionAction,
  TreeInfo,
  TreeNodeInfo,
  TreeToolInfo
} from "../protocol";
export {
  ACTION_SCOPES,
  scopeCan,
  scopeOfCredential
} from "../protocol/credential-scope";
export {
  type Mapping,
  mapObjects,
  mappedFields
} from "../protocol/map-objects";
export {
  type BranchOptions,
  type BranchPoint,
  stepAdvantages
} from "./branch-values";
export type { ChatEndpoint } from "./chat-completion";
export { type ChatMessage, toChatMessages } from "./chat-format";
export { type ClientErrorCode, RoostClientError } from "./client-error";
export { type Clock, systemClock, type TimerHandle } from "./clock";
export type { WholeEntry } from "./entry-parts";
export {
  type Advantaged,
  type AdvantageOptions,
  type AdvantagesResult,
  DEFAULT_EPSILON,
  type GroupAdvantage,
  groupAdvantages
} from "./group-advantages";
export {
  DEFAULT_JUDGE_RUBRIC,
  type GroupJudgeOptions,
  judgeGroup,
  judgePrompt,
  parseJudgement,
  ranks
} from "./group-judge";
export {
  type ClientOptions,
  createClient,
  RoostClient
} from "./http";
export { SessionItems } from "./items";
export {
  type TokenSequence,
  type TokenTurn,
  tokenSequences,
  tokenTurns
} from "./model-tokens";
export { type OpenAIPolicyOptions, openaiPolicy } from "./openai-policy";
export { type EventsPageQuery, type PageQuery, SessionPages } from "./pages";
export type { SocketRequest } from "./pending-requests";
export {
  callTool,
  messageText,
  type Policy,
  type PolicyDecision,
  type TokenUsage
} from "./policy";
export { randomPolicy, seededRandom } from "./random-policy";
export type { FetchLike } from "./request";
export {
  type EpisodeRubricLike,
  type PreviousScores,
  type RescoredTrajectory,
  type Rescoring,
  rescoreTrajectories,
  rescoreTrajectory,
  type StepRubricLike,
  type TrajectoryLine
} from "./rescore";
export {
  type RolloutOptions,
  type RolloutResult,
  rollout
} from "./rollout";
export {
  type MutationOptions,
  RoostSession,
  type ScopedToken,
  type StoreWrite
} from "./session-client";
export { SessionReads } from "./session-reads";
export { connectSession, SessionSocket } from "./socket";
export type {
  ConnectOptions,
  ResumeExpiredFrame,
  SnapshotFrame,
  SocketStatus,
  StatusDetail
} from "./socket-options";
export {
  passRate,
  SAMPLERS,
  type SamplerKind,
  signalWeight,
  taskSampler
} from "./task-sampler";
export {
  type TaskRecord,
  TaskStats,
  type TaskStatsFile,
  TaskStatsFileSchema
} from "./task-stats";
export type {
  GroupSummary,
  RolloutProgress,
  RolloutSummary,
  Trajectory
} from "./trajectory";
export type {
  SocketEventLike,
  WebSocketConstructor,
  WebSocketLike
} from "./websocket-like";
