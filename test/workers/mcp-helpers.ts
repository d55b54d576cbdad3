/**
 * @module JSON-RPC to a session's MCP endpoint, as the MCP tests send it:
 * a request, its POST, and its answer read as a 200.
 */

import { expect } from "vitest";
import { json, send, type TestSession } from "./helpers";

export interface RpcAnswer {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, unknown> & {
    tools?: { name: string; inputSchema: object }[];
    content?: { type: string; text: string }[];
    isError?: boolean;
    resources?: { uri: string; name: string }[];
    contents?: { uri: string; mimeType: string; text: string }[];
  };
  error?: { code: number; message: string; data?: unknown };
}

export const rpc = (
  method: string,
  params?: object,
  id: number | string = 1
) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params ? { params } : {})
});

export const post = async (s: TestSession, body: unknown) =>
  s.call("/mcp", send("POST", body));

export const answer = async (s: TestSession, body: unknown) => {
  const res = await post(s, body);
  expect(res.status).toBe(200);
  return json<RpcAnswer>(res);
};
