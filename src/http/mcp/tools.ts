/** @module MCP's tools/list and tools/call over a session's tools. */

import { RoostError } from "../../errors";
import type { Content } from "../../messages/schema";
import {
  type ToolInvocationResponse,
  ToolsCallParamsSchema
} from "../../protocol";
import { invalidParams, missingTool, parseParams } from "./failure";
import type { Revision } from "./revision";
import type { McpTarget } from "./target";

type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Tool message content as MCP content: text stays text, inline images become images. */
export const mcpContent = (content: Content): McpContent[] => {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts = content.map((part): McpContent => {
    if (part.type === "text") return { type: "text", text: part.text };
    const inline = DATA_URL.exec(part.image_url.url);
    // MCP images are inline; a linked one is passed on as its URL.
    return inline
      ? { type: "image", mimeType: inline[1] ?? "", data: inline[2] ?? "" }
      : { type: "text", text: part.image_url.url };
  });
  return parts.length > 0 ? parts : [{ type: "text", text: "" }];
};

/** The dialect zod writes; MCP's default since 2025-11-25, named so no client guesses. */
const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

export const listTools = async (
  target: McpTarget,
  _params?: unknown,
  revision?: Revision
) => {
  // Older clients' validators may not know the 2020-12 meta-schema by name;
  // the schema is the same either way.
  const named = revision !== undefined && revision.version >= "2025-11-25";
  return {
    // The model-facing schemas: parameters filled from state are hidden.
    tools: (await target.tools()).map((t) => ({
      name: t.function.name,
      description: t.function.description ?? "",
      inputSchema: named
        ? { $schema: JSON_SCHEMA_2020_12, ...t.function.parameters }
        : t.function.parameters
    }))
  };
};

/**
 * Runs the tool as POST …/tools/:tool does. A tool that fails is a result
 * with `isError` the model can read; an unknown tool is invalid params.
 */
export const callTool = async (target: McpTarget, params: unknown) => {
  const call = parseParams(ToolsCallParamsSchema(), params);
  let out: ToolInvocationResponse;
  try {
    out = await target.callTool(call.name, call.arguments ?? {});
  } catch (error) {
    if (error instanceof RoostError && missingTool(error) === call.name) {
      throw invalidParams(`Unknown tool: ${call.name}`);
    }
    throw error;
  }
  return {
    content: mcpContent(out.content),
    isError: out.is_error,
    // What the call stored, for clients that read structured output.
    structuredContent: { results: out.results }
  };
};
