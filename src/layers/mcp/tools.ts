/** @module MCP's tools/list and tools/call over a session's tools. */

import { RoostError } from "../../errors";
import { ToolsCallParamsSchema } from "../../protocol";
import { invalidParams, missingTool, parseParams } from "./failure";
import type { Revision } from "./revision";
import type { McpTarget } from "./target";
import { startToolTask, taskRequested } from "./tasks";
import { callAsTask, declaresTasks } from "./tasks-extension";
import { callToolResult } from "./tool-result";

/** The dialect zod writes; MCP's default since 2025-11-25, named so no client guesses. */
const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

export const listTools = async (
  target: McpTarget,
  _params?: unknown,
  revision?: Revision
) => {
  // Older clients' validators may not know the 2020-12 meta-schema by name;
  // the schema is the same either way.
  const recent = revision !== undefined && revision.version >= "2025-11-25";
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
        ? { execution: { taskSupport: "optional" } }
        : {})
    }))
  };
};

/**
 * Runs the tool as POST …/tools/:tool does, or, with `task`, starts it as
 * a task and answers at once. A tool that fails is a result with
 * `isError` the model can read; an unknown tool is invalid params.
 */
export const callTool = async (
  target: McpTarget,
  params: unknown,
  revision?: Revision
) => {
  const call = parseParams(ToolsCallParamsSchema(), params);
  const args = call.arguments ?? {};
  // Each revision asks for a task its own way: 2025-11-25 with `task` in
  // the params, 2026-07-28 by declaring the extension and leaving it to us.
  const task = revision?.modern ? undefined : taskRequested(params);
  try {
    if (task !== undefined)
      return await startToolTask(target, call.name, args, task);
    if (revision?.modern && declaresTasks(params))
      return await callAsTask(target, call.name, args);
    return callToolResult(await target.callTool(call.name, args));
  } catch (error) {
    if (error instanceof RoostError && missingTool(error) === call.name) {
      throw invalidParams(`Unknown tool: ${call.name}`);
    }
    throw error;
  }
};
