/** @module The environment store as MCP resources: one per tool/name key, read through the store RPCs. */

import { RoostError } from "../../errors";
import {
  JSONRPC_ERRORS,
  NAME_PATTERN,
  ResourcesReadParamsSchema,
  STORE_RESOURCE_PREFIX
} from "../../protocol";
import { invalidParams, missingTool, parseParams, RpcFailure } from "./failure";
import type { McpTarget } from "./target";

/** One page, as GET …/environment?tool=&name= answers; more is there over HTTP. */
const ENTRIES_PER_READ = 1000;

const uriOf = (tool: string, name: string) =>
  `${STORE_RESOURCE_PREFIX}${tool}/${name}`;

const keyOf = (uri: string): { tool: string; name: string } => {
  const [tool = "", name = "", ...rest] = uri.startsWith(STORE_RESOURCE_PREFIX)
    ? uri.slice(STORE_RESOURCE_PREFIX.length).split("/")
    : [];
  if (rest.length > 0 || !NAME_PATTERN.test(tool) || !NAME_PATTERN.test(name)) {
    throw invalidParams(
      `Not a Roost resource URI: ${uri.slice(0, 200)} (expected ${STORE_RESOURCE_PREFIX}<tool>/<name>).`
    );
  }
  return { tool, name };
};

// The hidden store is never listed: keys and reads go to the visible store.
export const listResources = async (target: McpTarget) => ({
  resources: (await target.storeKeys()).map((k) => ({
    uri: uriOf(k.tool, k.name),
    name: `${k.tool}/${k.name}`,
    description: `Results "${k.name}" of tool ${k.tool}: ${k.entries} entries, ${k.objects} objects.`,
    mimeType: "application/json"
  }))
});

export const listResourceTemplates = async () => ({
  resourceTemplates: [
    {
      uriTemplate: `${STORE_RESOURCE_PREFIX}{tool}/{name}`,
      name: "environment store key",
      description:
        "The entries a tool stored under one result name, oldest first.",
      mimeType: "application/json"
    }
  ]
});

export const readResource = async (target: McpTarget, params: unknown) => {
  const { uri } = parseParams(ResourcesReadParamsSchema, params);
  const { tool, name } = keyOf(uri);
  try {
    const page = await target.readKey(tool, name, ENTRIES_PER_READ);
    return {
      contents: [
        { uri, mimeType: "application/json", text: JSON.stringify(page) }
      ]
    };
  } catch (error) {
    if (error instanceof RoostError && missingTool(error) === tool) {
      throw new RpcFailure({
        code: JSONRPC_ERRORS.resourceNotFound,
        message: `Resource not found: ${uri}`,
        data: { uri }
      });
    }
    throw error;
  }
};
