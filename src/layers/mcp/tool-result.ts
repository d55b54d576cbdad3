/** @module A direct call's answer as MCP's CallToolResult, for tools/call and tasks/result alike. */

import type { Content, ContentPart } from "../../messages/schema";
import type { ToolInvocationResponse } from "../../protocol";

export type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | Extract<ContentPart, { type: "resource" }>;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** One message part as MCP content: each of Roost's parts has its MCP twin. */
export const mcpPart = (part: ContentPart): McpContent => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "input_audio":
      return {
        type: "audio",
        // OpenAI names formats; mp3's media type is audio/mpeg.
        mimeType:
          part.input_audio.format === "mp3"
            ? "audio/mpeg"
            : `audio/${part.input_audio.format}`,
        data: part.input_audio.data
      };
    case "resource":
      return part;
    case "image_url": {
      const inline = DATA_URL.exec(part.image_url.url);
      // MCP images are inline; a linked one is passed on as its URL.
      return inline
        ? { type: "image", mimeType: inline[1] ?? "", data: inline[2] ?? "" }
        : { type: "text", text: part.image_url.url };
    }
  }
};

/** Message content as MCP content: text stays text, parts become their MCP twins. */
export const mcpContent = (content: Content): McpContent[] => {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts = content.map(mcpPart);
  return parts.length > 0 ? parts : [{ type: "text", text: "" }];
};

/** A tool that failed is a result with `isError` the model can read. */
export const callToolResult = (out: ToolInvocationResponse) => ({
  content: mcpContent(out.content),
  isError: out.is_error,
  // What the call stored, for clients that read structured output.
  structuredContent: { results: out.results }
});
