/** @module The environment store as MCP resources: one per tool/name key, read through the store RPCs. */

import * as z from "zod";
import { RoostError } from "../../errors";
import { lazy } from "../../lazy";
import { NAME_RE } from "../../names";
import {
  JSONRPC_ERRORS,
  ResourcesReadParamsSchema,
  STORE_RESOURCE_PREFIX
} from "../../protocol";
import { missingTool, parseParams, RpcFailure } from "./failure";
import type { McpTarget } from "./target";

const uriOf = (tool: string, name: string, cursor?: string) =>
  `${STORE_RESOURCE_PREFIX}${tool}/${name}${cursor === undefined ? "" : `?cursor=${encodeURIComponent(cursor)}`}`;

/** A key's URI, and the page it names: `?cursor=` is where a previous read said to go on. */
const keyOf = (
  uri: string
): { tool: string; name: string; cursor?: string } => {
  const [path = "", query, ...more] = uri.split("?");
  const [tool = "", name = "", ...rest] = path.startsWith(STORE_RESOURCE_PREFIX)
    ? path.slice(STORE_RESOURCE_PREFIX.length).split("/")
    : [];
  const cursor =
    query === undefined
      ? undefined
      : /^cursor=[^&]{1,1024}$/.test(query)
        ? safeDecode(query.slice("cursor=".length))
        : null;
  if (
    rest.length > 0 ||
    more.length > 0 ||
    cursor === null ||
    !NAME_RE.test(tool) ||
    !NAME_RE.test(name)
  ) {
    throw new RpcFailure({
      code: JSONRPC_ERRORS.invalidParams,
      message: `Not a Roost resource URI: ${uri.slice(0, 200)} (expected ${STORE_RESOURCE_PREFIX}<tool>/<name>, with ?cursor=<next_cursor> to read on).`,
      data: { uri: uri.slice(0, 1024) }
    });
  }
  return cursor === undefined ? { tool, name } : { tool, name, cursor };
};

const safeDecode = (text: string): string | null => {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
};

const ListParamsSchema = lazy(() =>
  z.object({ cursor: z.string().min(1).max(1024).optional() }).optional()
);

// The hidden store is never listed: keys and reads go to the visible store.
export const listResources = async (target: McpTarget, params: unknown) => {
  const cursor = parseParams(ListParamsSchema(), params)?.cursor;
  const page = await target.storeKeys(cursor);
  return {
    resources: page.keys.map((k) => ({
      uri: uriOf(k.tool, k.name),
      name: `${k.tool}/${k.name}`,
      description: `Results "${k.name}" of tool ${k.tool}: ${k.entries} entries, ${k.objects} objects.`,
      mimeType: "application/json"
    })),
    ...(page.next_cursor === undefined ? {} : { nextCursor: page.next_cursor })
  };
};

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
  const { uri } = parseParams(ResourcesReadParamsSchema(), params);
  const { tool, name, cursor } = keyOf(uri);
  try {
    // One page of the key, bounded like GET …/environment?tool=&name=;
    // `next_uri` is the resource to read for the rest.
    const page = await target.readKey(tool, name, cursor);
    const next =
      page.next_cursor === undefined
        ? {}
        : { next_uri: uriOf(tool, name, page.next_cursor) };
    return {
      contents: [
        {
          uri,
          mimeType: "application/json",
          text: JSON.stringify({ ...page, ...next })
        }
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
