/** @module One tool called outside a step, as a mutation: the `call` operation's body, shared with tool-call tasks. */

import { callInEpisode } from "../environment/episode-machine";
import type { JsonObject } from "../json";
import { type ToolInvocationResponse, wireEntry } from "../protocol";
import type { CallerClient } from "../tools/ask";
import type { MutationContext } from "./commit";
import type { SessionShared } from "./shared";

/**
 * Runs the call inside a mutation and answers what it returned and stored;
 * `also` adds to the same commit (a task records its outcome there, so a
 * call and its task's end are durable together or not at all); `client`
 * is the MCP client the tool may ask mid-call.
 */
export const directCall = async (
  shared: SessionShared,
  m: MutationContext,
  c: { tool: string; arguments: JsonObject },
  also?: (out: ToolInvocationResponse) => void,
  client?: CallerClient
): Promise<ToolInvocationResponse> => {
  const id = `direct_${shared.events.lastAssigned + 1}`;
  const out = await callInEpisode(
    m.environment,
    m.row,
    m.parts,
    { id, tool: c.tool, arguments: c.arguments },
    {
      ...shared.executeOptions(m.hooks),
      direct: true,
      ...(client === undefined ? {} : { client })
    }
  );
  const response: ToolInvocationResponse = {
    content: out.message.content,
    is_error: out.message.is_error,
    results: out.results.map(wireEntry)
  };
  also?.(response);
  return response;
};
