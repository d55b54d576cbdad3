/** @module Chat messages and tool calls (OpenAI format). */

export {
  contentText,
  newToolCallId,
  systemMessage,
  toolCalls,
  toolResponse,
  userMessage
} from "./build";
export {
  type AssistantMessage,
  AssistantMessageSchema,
  type Content,
  type ContentPart,
  ContentPartSchema,
  ContentSchema,
  type Message,
  type MessageInput,
  MessageSchema,
  SystemMessageSchema,
  type ToolCall,
  type ToolCallInput,
  ToolCallSchema,
  type ToolMessage,
  ToolMessageSchema,
  UserMessageSchema
} from "./schema";
