/**
 * @module The MCP layer: every session, and every environment, as an MCP
 * server over Streamable HTTP (revisions 2024-11-05 to 2026-07-28), with
 * tool calls run as tasks. `oauth()` adds the authorization server its
 * hosted clients need.
 */

import type { Layer } from "../../http/layer";
import { TASK_ALARMS } from "./alarms";
import { TASK_OPERATIONS } from "./operations";
import { mcpRoutes } from "./routes";
import { MCP_CALL_PATH, serveMcpCall } from "./session-call";

// Re-exported so the declarations of `roost-edge/layers/mcp` load the
// file that declares these operations in LayerOperations.
export { TASK_OPERATIONS };

export const mcp = (): Layer => ({
  name: "mcp",
  routes: mcpRoutes,
  operations: TASK_OPERATIONS,
  alarms: TASK_ALARMS,
  objectRequests: {
    // The `call` operation's scope: it is one.
    [MCP_CALL_PATH]: {
      name: "call",
      scope: "act",
      answer: (runtime, _url, _grant, request) => serveMcpCall(runtime, request)
    }
  }
});
