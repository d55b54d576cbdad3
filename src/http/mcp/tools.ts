/** @module MCP's tools/list and tools/call over a session's tools. */

import { RoostError } from "../../errors";
import { ToolsCallParamsSchema } from "../../protocol";
import { invalidParams, missingTool, parseParams } from "./failure";
import type { McpTarget } from "./target";
import { startToolTask, taskRequested } from "./tasks";
import { callToolResult } from "./tool-result";

export { mcpContent } from "./tool-result";

export const listTools = async (target: McpTarget) => ({
  // The model-facing schemas: parameters filled from state are hidden.
  tools: (await target.tools()).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? "",
    inputSchema: t.function.parameters,
    // Any call may run as a task (tasks.ts); a plain call still answers.
    execution: { taskSupport: "optional" }
  }))
});

/**
 * Runs the tool as POST …/tools/:tool does, or, with `task`, starts it as
 * a task and answers at once. A tool that fails is a result with
 * `isError` the model can read; an unknown tool is invalid params.
 */
export const callTool = async (target: McpTarget, params: unknown) => {
  const call = parseParams(ToolsCallParamsSchema(), params);
  const task = taskRequested(params);
  try {
    if (task !== undefined)
      return await startToolTask(target, call.name, call.arguments ?? {}, task);
    return callToolResult(
      await target.callTool(call.name, call.arguments ?? {})
    );
  } catch (error) {
    if (error instanceof RoostError && missingTool(error) === call.name) {
      throw invalidParams(`Unknown tool: ${call.name}`);
    }
    throw error;
  }
};
