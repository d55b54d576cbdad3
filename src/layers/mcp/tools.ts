/** @module MCP's tools/list and tools/call over a session's tools. */

import { RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import {
  JSONRPC_ERRORS,
  MCP_META,
  ToolsCallParamsSchema
} from "../../protocol";
import { LOG_LEVELS, type LogLevel } from "../../store/result";
import {
  InputRequired,
  MissingCapability,
  missingCapabilities
} from "../../tools/ask";
import type { Exchange } from "./exchange";
import { invalidParams, missingTool, parseParams, RpcFailure } from "./failure";
import {
  declaredCapabilities,
  inputRequiredResult,
  isMissingCapability,
  missingCapability,
  resumed
} from "./input-required";
import { LIVE_VIEW_URI } from "./live-view";
import { checkParamHeaders } from "./param-headers";
import type { CallChannel } from "./session-stream";
import type { McpTarget } from "./target";
import { startToolTask, taskRequested } from "./tasks";
import { callAsTask, declaresTasks, tasksRequired } from "./tasks-extension";
import { callToolResult } from "./tool-result";

/** The dialect zod writes; MCP's default since 2025-11-25, named so no client guesses. */
const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

export const listTools = async (
  target: McpTarget,
  _params: unknown,
  { revision }: Exchange
) => {
  // Older clients' validators may not know the 2020-12 meta-schema by name;
  // the schema is the same either way.
  const recent = revision.version >= "2025-11-25";
  const environment = await target.environment();
  return {
    // The model-facing schemas: parameters filled from state are hidden.
    tools: (await target.tools()).map((t) => ({
      name: t.function.name,
      description: t.function.description ?? "",
      inputSchema: recent
        ? { $schema: JSON_SCHEMA_2020_12, ...t.function.parameters }
        : t.function.parameters,
      // 2025-11-25's tasks: any call may run as one (tasks.ts), and a plain
      // call still answers. The stateless revision dropped the field: there
      // the server decides, for a client that declared the extension.
      ...(recent && !revision.modern
        ? {
            execution: {
              taskSupport:
                environment.tools.get(t.function.name)?.taskSupport ??
                "optional"
            }
          }
        : {}),
      // A host that renders MCP Apps shows the session live beside the call.
      ...(target.liveView === undefined
        ? {}
        : { _meta: { ui: { resourceUri: LIVE_VIEW_URI } } })
    }))
  };
};

/** What a stateless request asks to be logged at: its `_meta` logLevel. */
const logLevelOf = (exchange: Exchange): LogLevel | undefined => {
  const level = exchange.meta?.[MCP_META.logLevel];
  return (LOG_LEVELS as readonly unknown[]).includes(level)
    ? (level as LogLevel)
    : undefined;
};

/**
 * Carries the call's updates and questions to its client: progress when
 * the request gave a progress token, log lines (the session filtered them
 * by level), and, live, what the tool asks.
 */
const channelOf = (
  exchange: Exchange,
  answers: Record<string, JsonObject>
): CallChannel => {
  const { revision, send } = exchange;
  const progressToken = exchange.meta?.progressToken;
  const logLevel = logLevelOf(exchange);
  return {
    live: !revision.modern && send !== undefined,
    ...(revision.modern
      ? { capabilities: declaredCapabilities(exchange), answers }
      : {}),
    ...(revision.modern && logLevel !== undefined ? { logLevel } : {}),
    onFrame: (frame) => {
      if ("updated" in frame) {
        send?.({
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri: frame.updated }
        });
        return;
      }
      if ("ask" in frame) {
        const { id, method, params = {} } = frame.ask;
        send?.({ jsonrpc: "2.0", id, method, params });
        return;
      }
      const u = frame.update;
      if (u.kind === "progress" && progressToken !== undefined) {
        const { kind: _, ...progress } = u;
        send?.({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken, ...progress }
        });
      } else if (u.kind === "log") {
        const { kind: _, ...line } = u;
        send?.({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: line
        });
      }
    }
  };
};

/**
 * Runs the tool as POST …/tools/:tool does, streaming its progress and
 * log lines and asking its client what it asks; or, with `task`, starts
 * it as a task and answers at once. A tool that fails is a result with
 * `isError` the model can read; an unknown tool is invalid params.
 */
export const callTool = async (
  target: McpTarget,
  params: unknown,
  exchange: Exchange
) => {
  const call = parseParams(ToolsCallParamsSchema(), params);
  const args = call.arguments ?? {};
  const { revision } = exchange;
  const ref = { method: "tools/call", name: call.name };
  // Each revision asks for a task its own way: 2025-11-25 with `task` in
  // the params, 2026-07-28 by declaring the extension and leaving it to us.
  const task = revision.modern ? undefined : taskRequested(params);
  // The call's own scope, before anything is read for it.
  target.requireScope("act");
  try {
    if (task !== undefined)
      return await startToolTask(target, call.name, args, task);
    const environment = await target.environment();
    const tool = environment.tools.get(call.name);
    if (revision.modern) {
      checkParamHeaders(
        environment.toolSchemas.find((t) => t.function.name === call.name),
        args,
        exchange.headers
      );
    }
    const support = tool?.taskSupport;
    const tasks = revision.modern && declaresTasks(params);
    if (support === "required" && !tasks) {
      if (revision.modern) throw tasksRequired(`Tool ${call.name}`);
      // 2025-11-25: a task-only tool called plainly is no method here.
      throw new RpcFailure({
        code: JSONRPC_ERRORS.methodNotFound,
        message: `Tool ${call.name} runs only as a task: call it with params.task.`
      });
    }
    const { answers } = revision.modern
      ? await resumed(exchange, params, ref)
      : { answers: {} };
    // What the tool asks before it starts, a stateless client answers
    // first: before a task is made for it.
    const first = revision.modern ? tool?.asksFirst?.(args) : undefined;
    if (first !== undefined) {
      const unanswered = Object.entries(first).filter(
        ([name]) => !Object.hasOwn(answers, name)
      );
      const missing = missingCapabilities(
        declaredCapabilities(exchange),
        first
      );
      if (Object.keys(missing).length > 0) throw new MissingCapability(missing);
      if (unanswered.length > 0) {
        const asked = new InputRequired(Object.fromEntries(unanswered));
        return await inputRequiredResult(exchange, asked, ref, answers);
      }
    }
    if (tasks && support !== "forbidden") {
      return await callAsTask(
        target,
        call.name,
        args,
        support === undefined ? "after a while" : "once",
        { capabilities: declaredCapabilities(exchange), answers }
      );
    }
    try {
      return callToolResult(
        await target.callTool(call.name, args, channelOf(exchange, answers))
      );
    } catch (error) {
      if (!(error instanceof InputRequired)) throw error;
      if (revision.modern) {
        return await inputRequiredResult(exchange, error, ref, answers);
      }
      // A client of the handshake era is asked over the call's stream.
      throw new RpcFailure({
        code: JSONRPC_ERRORS.invalidRequest,
        message: `Tool ${call.name} asks its client mid-call: send Accept: application/json, text/event-stream, and answer its requests.`
      });
    }
  } catch (error) {
    if (isMissingCapability(error)) throw missingCapability(error);
    if (error instanceof RoostError && missingTool(error) === call.name) {
      throw invalidParams(`Unknown tool: ${call.name}`);
    }
    throw error;
  }
};
