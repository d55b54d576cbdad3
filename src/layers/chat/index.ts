/** @module The chat layer: the AI SDK's `useChat` on a session, a decision-tree run answered as its UI message stream. */

import type { Layer } from "../../http/layer";
import { startChat } from "./operation";
import { chatRoutes } from "./routes";
import { CHAT_STREAM_PATH, serveChatStream } from "./stream";

// Re-exported so the declarations of `roost-edge/layers/chat` load the
// file that declares it in LayerOperations.
export { startChat };

export const chat = (): Layer => ({
  name: "chat",
  routes: chatRoutes,
  operations: { startChat },
  objectRequests: {
    [CHAT_STREAM_PATH]: {
      name: "a chat's stream",
      scope: "observe",
      answer: async (runtime, url) => serveChatStream(runtime, url)
    }
  }
});
