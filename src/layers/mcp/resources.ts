/**
 * @module MCP's resources: those the environment declares (`mcp.resources`,
 * `mcp.resourceTemplates`), and the session's store, one resource per
 * tool/name key read through the store RPCs.
 */

import * as z from "zod";
import type { OfferContext, ResourceBody } from "../../environment/mcp-offer";
import { RoostError } from "../../errors";
import { lazy } from "../../lazy";
import { NAME_RE } from "../../names";
import {
  JSONRPC_ERRORS,
  ResourcesReadParamsSchema,
  STORE_RESOURCE_PREFIX,
  type StoreKeysResponse
} from "../../protocol";
import { authorFailed, missingTool, parseParams, RpcFailure } from "./failure";
import {
  LIVE_VIEW_URI,
  liveViewHtml,
  liveViewMeta,
  MCP_APP_MIME_TYPE
} from "./live-view";
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
// The environment's own resources come first, on the first page.
export const listResources = async (target: McpTarget, params: unknown) => {
  const cursor = parseParams(ListParamsSchema(), params)?.cursor;
  const page = await target.storeKeys(cursor);
  const declared =
    cursor === undefined
      ? Object.entries((await target.environment()).mcp?.resources ?? {})
      : [];
  return {
    // The live view (an MCP App) is found from the tools' `_meta`, as
    // hosts look for apps, and is not listed with the data.
    resources: [
      ...declared.map(([uri, r]) => ({
        uri,
        name: r.name ?? uri,
        ...described(r)
      })),
      ...storeResources(page)
    ],
    ...(page.next_cursor === undefined ? {} : { nextCursor: page.next_cursor })
  };
};

/** A declared resource's optional fields, as MCP lists them. */
const described = (r: {
  title?: string;
  description?: string;
  mimeType?: string;
}) => ({
  ...(r.title === undefined ? {} : { title: r.title }),
  ...(r.description === undefined ? {} : { description: r.description }),
  ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType })
});

const storeResources = (page: StoreKeysResponse) =>
  page.keys.map((k) => ({
    uri: uriOf(k.tool, k.name),
    name: `${k.tool}/${k.name}`,
    description: `Results "${k.name}" of tool ${k.tool}: ${k.entries} entries, ${k.objects} objects.`,
    mimeType: "application/json"
  }));

export const listResourceTemplates = async (target: McpTarget) => ({
  resourceTemplates: [
    ...Object.entries(
      (await target.environment()).mcp?.resourceTemplates ?? {}
    ).map(([uriTemplate, t]) => ({
      uriTemplate,
      name: t.name ?? uriTemplate,
      ...described(t)
    })),
    {
      uriTemplate: `${STORE_RESOURCE_PREFIX}{tool}/{name}`,
      name: "environment store key",
      description:
        "The entries a tool stored under one result name, oldest first.",
      mimeType: "application/json"
    }
  ]
});

const notFound = (uri: string): RpcFailure =>
  new RpcFailure({
    code: JSONRPC_ERRORS.resourceNotFound,
    message: `Resource not found: ${uri.slice(0, 200)}`,
    data: { uri: uri.slice(0, 1024) }
  });

/** The variables of `uri` if it fills `template` (`{name}` is one segment). */
export const matchTemplate = (
  template: string,
  uri: string
): Record<string, string> | undefined => {
  const names: string[] = [];
  const pattern = template
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((piece) => {
      const name = /^\{([A-Za-z0-9_]+)\}$/.exec(piece)?.[1];
      if (name === undefined)
        return piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(name);
      return "([^/?#]+)";
    })
    .join("");
  const found = new RegExp(`^${pattern}$`).exec(uri);
  if (found === null) return undefined;
  const variables: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    const value = safeDecode(found[i + 1] ?? "");
    if (value === null) return undefined;
    variables[name] = value;
  }
  return variables;
};

/** A resource the environment declares, or one its templates make. */
const readDeclared = async (
  target: McpTarget,
  uri: string,
  client: OfferContext
) => {
  const offer = (await target.environment()).mcp;
  const resource = offer?.resources?.[uri];
  const templated = resource
    ? undefined
    : Object.entries(offer?.resourceTemplates ?? {}).flatMap(([t, def]) => {
        const variables = matchTemplate(t, uri);
        return variables === undefined ? [] : [{ def, variables }];
      })[0];
  if (resource === undefined && templated === undefined) throw notFound(uri);
  let body: ResourceBody;
  try {
    body =
      resource !== undefined
        ? await resource.read(client)
        : await (templated as NonNullable<typeof templated>).def.read(
            (templated as NonNullable<typeof templated>).variables,
            client
          );
  } catch (error) {
    throw authorFailed(`Resource ${uri.slice(0, 200)}`, error);
  }
  const mimeType =
    body.mimeType ?? resource?.mimeType ?? templated?.def.mimeType;
  return {
    contents: [
      {
        uri,
        ...(mimeType === undefined ? {} : { mimeType }),
        ...("text" in body ? { text: body.text } : { blob: body.blob })
      }
    ]
  };
};

export const readResource = async (target: McpTarget, params: unknown) => {
  const { uri } = parseParams(ResourcesReadParamsSchema(), params);
  if (uri === LIVE_VIEW_URI && target.liveView !== undefined) {
    const view = await target.liveView();
    return {
      contents: [
        {
          uri,
          mimeType: MCP_APP_MIME_TYPE,
          text: liveViewHtml(view),
          _meta: liveViewMeta(view)
        }
      ]
    };
  }
  if (!uri.startsWith(STORE_RESOURCE_PREFIX)) {
    return await readDeclared(target, uri, {});
  }
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
      throw notFound(uri);
    }
    throw error;
  }
};
