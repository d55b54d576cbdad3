/** @module An `mcp` frame's request, answered by MCP's dispatch on the session's own target. */

import type { Registry } from "../../environment/registry";
import type { RoostBindings } from "../../http/env";
import type { SessionGateway } from "../../http/gateway";
import { signingKeys } from "../../http/secrets";
import type { JsonObject } from "../../json";
import type { JsonRpcMessage } from "../../protocol";
import { dispatchMcp } from "../mcp/dispatch";
import { requestMeta } from "../mcp/revision";
import { sessionTarget } from "../mcp/target";

export const answerMcpFrame = async (
  message: JsonRpcMessage & { id: string | number },
  registry: Registry,
  session: SessionGateway,
  env: RoostBindings
): Promise<JsonObject> =>
  // A frame carries no stream back: nothing is sent before the answer.
  (await dispatchMcp(message, sessionTarget(registry, session), {
    revision: { modern: false, version: "2025-03-26" },
    headers: new Headers(),
    meta: requestMeta(message),
    send: undefined,
    keys: () => signingKeys(env)
  })) as unknown as JsonObject;
