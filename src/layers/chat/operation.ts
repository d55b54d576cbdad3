/** @module The chat endpoint's operation: a decision-tree run that remembers its chat. */

import {
  ChatIdSchema,
  RunCreatedSchema,
  RunRequestSchema
} from "../../protocol";
import { defineOperation } from "../../session/operations/define";
import { RUN_EVENTS } from "../../session/operations/runs";

/** A run started by the chat endpoint: a run like any, that remembers its chat. */
export const startChat = defineOperation({
  input: () => RunRequestSchema().extend({ chat_id: ChatIdSchema() }),
  output: RunCreatedSchema,
  scope: "act",
  mutates: true,
  idempotency: { scope: () => "runs", hashed: (input) => input },
  events: RUN_EVENTS,
  handle: (rt, { chat_id, ...request }, idem) =>
    rt.runs.start({ ...request, chatId: chat_id }, idem)
});

declare module "../../session/operations" {
  interface LayerOperations {
    startChat: typeof startChat;
  }
}
