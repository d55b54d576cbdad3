/**
 * @module What a server shows of a session besides its step answers, read
 * the way other clients read it: OpenEnv's HTTP episode of the same task
 * and actions, the session's MCP listings and resources, `/frame`.
 */

import type { FetchLike } from "../client/request";
import type { RoostSession } from "../client/session-client";
import type { AssistantMessage } from "../messages/schema";
import type { TaskChoice } from "./target";

export interface Wire {
  baseUrl: string;
  fetch: FetchLike;
  apiKey?: string;
}

const post = async (
  wire: Wire,
  url: string,
  body: unknown,
  headers: Record<string, string> = {}
): Promise<{ status: number; body: unknown; headers: Headers }> => {
  const response = await wire.fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers
    },
    body: JSON.stringify(body)
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers };
};

/**
 * The same episode over OpenEnv's HTTP routes: a reset of the task on the
 * environment's open OpenEnv base, each action stepped under the base the
 * reset's metadata names, then its `/state`. Every answer is kept; a
 * refused step ends the replay (OpenEnv takes only actions with tool
 * calls). The session the reset made is deleted.
 */
export const openEnvFrames = async (
  wire: Wire,
  environment: string,
  task: TaskChoice,
  actions: AssistantMessage[]
): Promise<unknown[]> => {
  const auth: Record<string, string> =
    wire.apiKey === undefined ? {} : { authorization: `Bearer ${wire.apiKey}` };
  const base = `${wire.baseUrl}/v1/environments/${encodeURIComponent(environment)}/openenv`;
  const reset = await post(wire, `${base}/reset`, task, auth);
  const frames: unknown[] = [reset.body];
  const metadata = (reset.body as { metadata?: Record<string, unknown> })
    ?.metadata;
  const reattach = metadata?.reattach_base_url;
  if (reset.status !== 200 || typeof reattach !== "string") return frames;
  try {
    for (const action of actions) {
      const step = await post(wire, `${reattach}/step`, { action });
      frames.push(step.body);
      if (step.status !== 200 || (step.body as { done?: boolean }).done) break;
    }
    const state = await wire.fetch(`${reattach}/state`, { method: "GET" });
    frames.push(await state.json().catch(() => null));
  } finally {
    await wire
      .fetch(
        `${wire.baseUrl}/v1/sessions/${encodeURIComponent(String(metadata?.session_id))}`,
        {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${String(metadata?.session_token)}`
          }
        }
      )
      .catch(() => undefined);
  }
  return frames;
};

/** Most resources read from one listing: enough to see a leak, bounded for a store of thousands of keys. */
const MAX_RESOURCES = 50;

/**
 * The session's MCP endpoint as an MCP client sees it: initialize, then
 * tools/list, resources/list, and resources/read of each listed resource.
 */
export const mcpListings = async (
  wire: Wire,
  session: RoostSession
): Promise<{ tools: unknown; resources: unknown; reads: unknown[] }> => {
  const url = `${wire.baseUrl}/v1/sessions/${encodeURIComponent(session.id)}/mcp`;
  let headers: Record<string, string> = {
    authorization: `Bearer ${session.token}`
  };
  let id = 0;
  const rpc = async (method: string, params: unknown = {}) => {
    const answer = await post(
      wire,
      url,
      { jsonrpc: "2.0", id: ++id, method, params },
      headers
    );
    return answer;
  };
  const init = await rpc("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "roost-edge-validate", version: "1" }
  });
  const mcpSession = init.headers.get("mcp-session-id");
  headers = {
    ...headers,
    "mcp-protocol-version": "2025-06-18",
    ...(mcpSession === null ? {} : { "mcp-session-id": mcpSession })
  };
  await post(
    wire,
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    headers
  );
  const tools = (await rpc("tools/list")).body;
  const resources = (await rpc("resources/list")).body;
  const listed =
    (resources as { result?: { resources?: { uri: string }[] } }).result
      ?.resources ?? [];
  const reads: unknown[] = [];
  for (const r of listed.slice(0, MAX_RESOURCES))
    reads.push((await rpc("resources/read", { uri: r.uri })).body);
  return { tools, resources, reads };
};
