/** @module A direct call's answer as MCP's CallToolResult, for tools/call and tasks/result alike. */

import type { Content } from "../../messages/schema";
import type { ToolInvocationResponse } from "../../protocol";

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

/** A tool that failed is a result with `isError` the model can read. */
export const callToolResult = (out: ToolInvocationResponse) => ({
  content: mcpContent(out.content),
  isError: out.is_error,
  // What the call stored, for clients that read structured output.
  structuredContent: { results: out.results }
});
