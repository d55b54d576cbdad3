/** @module Every wire shape of Roost (HTTP bodies, WebSocket frames) as zod schemas; safe for browsers and Node. */

// The one name rule is names.ts's, published here under its public name.
export { NAME_RE as NAME_PATTERN } from "../names";
export {
  AviaryEnvRequestSchema,
  AviaryFlushRequestSchema,
  AviaryFlushResponseSchema,
  AviaryInfoResponseSchema,
  type AviaryMessage,
  AviaryMessageSchema,
  type AviaryOutMessage,
  type AviaryResetResponse,
  AviaryResetResponseSchema,
  AviaryStartRequestSchema,
  AviaryStartResponseSchema,
  AviaryStepRequestSchema,
  type AviaryStepResponse,
  AviaryStepResponseSchema,
  type AviaryTool
} from "./aviary";
export {
  type CallTaskStatus,
  TASK_STATUSES,
  TASK_TTL_MS,
  TaskListSchema,
  TaskStartSchema,
  type TaskState,
  TaskStatusSchema
} from "./call-tasks";
export {
  AckFrameSchema,
  CallFrameSchema,
  CancelFrameSchema,
  CLIENT_FRAME_TYPES,
  type ClientFrame,
  type ClientFrameInput,
  ClientFrameSchema,
  type ClientFrameType,
  IdempotencyKeySchema,
  OpFrameSchema,
  PING_FRAME,
  PingFrameSchema,
  RequestIdSchema,
  ResetFrameSchema,
  ResumeFrameSchema,
  StepFrameSchema
} from "./client-frames";
export {
  CLOSE_CODES,
  type CloseCode,
  type CloseCodeName,
  closeReplyCode,
  isTerminalCloseCode
} from "./close-codes";
export {
  ACTION_SCOPES,
  agentOfCredential,
  type SessionAction,
  scopeCan,
  scopeOfCredential
} from "./credential-scope";
export {
  displayFields,
  type Entry,
  EntrySchema,
  type KeyInfo,
  KeyInfoSchema,
  type LocatedEntry,
  LocatedEntrySchema,
  partFields,
  type StoreJson,
  StoreJsonSchema,
  wireEntry,
  wireStore
} from "./entries";
export {
  ErrorBodySchema,
  ErrorCodeSchema,
  type ErrorResponse,
  ErrorResponseSchema,
  type IssueDetail,
  issuesToErrorBody
} from "./error-body";
export {
  type Emit,
  EVENT_TYPES,
  type EventData,
  type EventFrame,
  EventFrameSchema,
  type EventOf,
  type EventType,
  ForkedEventSchema,
  MessageEventSchema,
  ModelCallEventSchema,
  ResetEventSchema,
  ResultEventSchema,
  StateChangedEventSchema,
  StepAbortedEventSchema,
  StepEventSchema,
  StoreChangedEventSchema,
  ToolExceptionSchema,
  ToolFinishedEventSchema,
  ToolStartedEventSchema,
  TreeCompletedEventSchema,
  TreeDecisionEventSchema,
  TreeNodeEventSchema,
  UpdateEventSchema
} from "./event-frames";
export {
  ChatIdSchema,
  type ChatRequest,
  ChatRequestSchema,
  ChatStreamParamsSchema,
  chatPrompt
} from "./http-chat";
export {
  type AgentInfo,
  AgentInfoSchema,
  type EnvironmentInfo,
  EnvironmentInfoSchema,
  type EnvironmentParams,
  EnvironmentParamsSchema,
  type EnvironmentsResponse,
  EnvironmentsResponseSchema,
  type ModelInfo,
  ModelInfoSchema,
  type SplitInfo,
  SplitInfoSchema,
  type TreeInfo,
  TreeInfoSchema,
  type TreeNodeInfo,
  TreeNodeInfoSchema,
  type TreeToolInfo,
  TreeToolInfoSchema,
  type ValidationInfo,
  ValidationInfoSchema
} from "./http-environments";
export {
  EVENTS_PAGE,
  type EventsQuery,
  EventsQuerySchema,
  type EventsResponse,
  EventsResponseSchema
} from "./http-events";
export {
  RESCORE_EPISODES,
  type RescoreRequest,
  RescoreRequestSchema,
  type RescoreResponse,
  RescoreResponseSchema
} from "./http-rescore";
export {
  MAX_RUN_WAIT_SECONDS,
  type RunCreated,
  RunCreatedSchema,
  type RunOutcome,
  RunOutcomeSchema,
  type RunParams,
  RunParamsSchema,
  type RunQuery,
  RunQuerySchema,
  type RunRequest,
  RunRequestSchema,
  type RunState,
  RunStateSchema,
  type RunStatus,
  RunStatusSchema
} from "./http-runs";
export {
  type CreateSessionRequest,
  CreateSessionRequestSchema,
  type CreateSessionResponse,
  CreateSessionResponseSchema,
  type DeleteSessionResponse,
  DeleteSessionResponseSchema,
  type ForkedSession,
  ForkedSessionSchema,
  type ForkRequest,
  ForkRequestSchema,
  type ForkResponse,
  ForkResponseSchema,
  type HealthResponse,
  HealthResponseSchema,
  type InitialState,
  InitialStateSchema,
  type Jurisdiction,
  JurisdictionSchema,
  type LocationHint,
  LocationHintSchema,
  MAX_FORK_COUNT,
  type ResetRequest,
  ResetRequestSchema,
  type ResetResponse,
  ResetResponseSchema,
  SessionIdSchema,
  type SessionParams,
  SessionParamsSchema,
  type StepRequest,
  type StepRequestInput,
  StepRequestSchema,
  type StepResponse,
  StepResponseSchema
} from "./http-sessions";
export {
  FrameQuerySchema,
  type FrameResponse,
  FrameResponseSchema,
  type MessagesQuery,
  MessagesQuerySchema,
  type MessagesResponse,
  MessagesResponseSchema,
  type StateHandlerName,
  StateHandlerNameSchema,
  type StatePatchRequest,
  StatePatchRequestSchema,
  type StatePatchResponse,
  StatePatchResponseSchema,
  type StateQuery,
  StateQuerySchema,
  type StateResponse,
  StateResponseSchema,
  StateValuesSchema
} from "./http-state";
export {
  type StoreEntriesResponse,
  StoreEntriesResponseSchema,
  type StoreEntryParams,
  StoreEntryParamsSchema,
  type StoreEntryResponse,
  StoreEntryResponseSchema,
  type StoreKeyParams,
  StoreKeyParamsSchema,
  type StoreKeysQuery,
  StoreKeysQuerySchema,
  type StoreKeysResponse,
  StoreKeysResponseSchema,
  type StorePageResponse,
  StorePageResponseSchema,
  type StoreQuery,
  type StoreQueryInput,
  StoreQuerySchema,
  type StoreRemoveResponse,
  StoreRemoveResponseSchema,
  type StoreWriteRequest,
  StoreWriteRequestSchema
} from "./http-store";
export {
  DEFAULT_TOKEN_TTL_S,
  HiddenQuerySchema,
  HiddenResponseSchema,
  MAX_TOKEN_TTL_S,
  RevokeRequestSchema,
  type RevokeResponse,
  RevokeResponseSchema,
  ScopeSchema,
  type TokenRequest,
  TokenRequestSchema,
  type TokenResponse,
  TokenResponseSchema
} from "./http-tokens";
export {
  type ToolInvocationRequest,
  ToolInvocationRequestSchema,
  type ToolInvocationResponse,
  ToolInvocationResponseSchema,
  type ToolParams,
  ToolParamsSchema
} from "./http-tools";
export {
  checkJsonLimits,
  JsonObjectSchema,
  JsonValueSchema
} from "./json-value";
export {
  DEFAULT_LIMITS,
  type Limits,
  LimitsSchema,
  type Name,
  NameSchema
} from "./limits";
export { type Mapping, mapObjects, mappedFields } from "./map-objects";
export {
  InitializeParamsSchema,
  JSONRPC_ERRORS,
  JsonRpcClientResponseSchema,
  type JsonRpcError,
  type JsonRpcMessage,
  JsonRpcMessageSchema,
  type JsonRpcResponse,
  MCP_META,
  MCP_METHOD_HEADER,
  MCP_MODERN_VERSIONS,
  MCP_NAME_HEADER,
  MCP_PROTOCOL_VERSIONS,
  MCP_SESSION_HEADER,
  MCP_VERSION_HEADER,
  ResourcesReadParamsSchema,
  STORE_RESOURCE_PREFIX,
  ToolsCallParamsSchema
} from "./mcp";
export {
  type Action,
  type ActionInput,
  ActionSchema,
  WireMessageSchema
} from "./messages";
export { type OpenAITool, OpenAIToolSchema } from "./openai-tool";
export {
  OPENENV_ERROR_CODES,
  OPENENV_FRAME_TYPES,
  OPENENV_TOOL_ERROR_TYPES,
  OpenEnvCallToolSchema,
  OpenEnvConnectRequestSchema,
  OpenEnvConnectResponseSchema,
  type OpenEnvErrorCode,
  type OpenEnvErrorFrame,
  OpenEnvErrorFrameSchema,
  type OpenEnvFrame,
  OpenEnvFrameSchema,
  OpenEnvHealthSchema,
  OpenEnvListToolsSchema,
  OpenEnvMessageActionSchema,
  OpenEnvMetadataSchema,
  type OpenEnvObservationFrame,
  type OpenEnvResetData,
  OpenEnvResetDataSchema,
  OpenEnvSchemaResponseSchema,
  type OpenEnvState,
  OpenEnvStateSchema,
  type OpenEnvToolErrorType,
  OpenEnvToolSchema
} from "./openenv";
export {
  type FrameLimits,
  type ParsedClientFrame,
  parseClientFrame
} from "./parse-client-frame";
export { CursorSchema, integerString, PAGE_LIMIT } from "./query";
export {
  MaxBytesSchema,
  maxBytesParam,
  READ_BYTES,
  ReadBudget,
  truncatedField,
  truncatedSchema
} from "./read-budget";
export {
  type RewardComponent,
  RewardComponentSchema,
  type RewardComponents,
  RewardComponentsSchema
} from "./reward-components";
export { allows, SCOPES, type Scope } from "./scopes";
export {
  type BatchFrame,
  BatchFrameSchema,
  type ConnectionFrame,
  ConnectionFrameSchema,
  PONG_FRAME,
  PongFrameSchema,
  ProtocolErrorFrameSchema,
  ReplyErrorFrameSchema,
  type ReplyFrame,
  ReplyFrameSchema,
  ReplyOkFrameSchema,
  ResumeExpiredFrameSchema,
  type ServerFrame,
  ServerFrameSchema,
  type ServerFrameType,
  SnapshotFrameSchema
} from "./server-frames";
export {
  type SessionPhase,
  SessionPhaseSchema,
  type SessionStatus,
  SessionStatusSchema,
  TimestampSchema
} from "./session-status";
export {
  SUBPROTOCOL,
  selectSubprotocol,
  subprotocolHeaders,
  subprotocolsFor,
  TOKEN_SUBPROTOCOL_PREFIX,
  tokenFromSubprotocols
} from "./subprotocol";
export {
  RunChunks,
  type RunEvent,
  SSE_DONE,
  sseData,
  UI_STREAM_HEADERS,
  type UiChunk
} from "./ui-chunks";
