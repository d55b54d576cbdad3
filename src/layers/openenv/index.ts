/**
 * @module The OpenEnv layer: OpenEnv's WebSocket and HTTP protocol, its
 * task API and its MCP under every OpenEnv base, so `openenv-core`'s
 * Python client drives a session unmodified. It carries MCP's session
 * operations, which its MCP routes reach.
 */

import type { Layer } from "../../http/layer";
import { TASK_ALARMS } from "../mcp/alarms";
import { TASK_OPERATIONS } from "../mcp/operations";
import { openEnvHttpRoutes } from "./http-routes";
import { OPENENV_SOCKET, openEnvSocket } from "./object-socket";
import { openEnvRoutes } from "./socket-route";
import { openEnvTaskRoutes } from "./task-routes";

export const openenv = (): Layer => ({
  name: "openenv",
  routes: [...openEnvRoutes, ...openEnvHttpRoutes, ...openEnvTaskRoutes],
  operations: TASK_OPERATIONS,
  alarms: TASK_ALARMS,
  sockets: { [OPENENV_SOCKET]: openEnvSocket }
});
