/**
 * @module The resources (RFC 8707) an OAuth token can be bound to: one MCP
 * endpoint each, a session's or an environment's, named by its URL
 * without query or fragment. A token's signature covers the URL, so a
 * token presented anywhere else fails its check.
 */

const MCP_PATH = /^\/v1\/(sessions|environments)\/([A-Za-z0-9_-]{1,64})\/mcp$/;

export interface McpResource {
  /** The canonical URL: origin and path. */
  uri: string;
  kind: "session" | "environment";
  /** The session id or the environment's name. */
  name: string;
}

/** The MCP endpoint `value` names, or `undefined` if it names none. */
export const mcpResource = (value: string): McpResource | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.search !== "" || url.hash !== "" || value.includes("#"))
    return undefined;
  if (url.username !== "" || url.password !== "") return undefined;
  const match = MCP_PATH.exec(url.pathname);
  if (match === null) return undefined;
  return {
    uri: `${url.origin}${url.pathname}`,
    kind: match[1] === "sessions" ? "session" : "environment",
    name: match[2]!
  };
};

/** The MCP endpoint a request is for, if it is for one. */
export const requestResource = (
  requestUrl: string
): McpResource | undefined => {
  const url = new URL(requestUrl);
  return mcpResource(`${url.origin}${url.pathname}`);
};

/** Where a resource's metadata (RFC 9728) is: the well-known path with the resource's path after it. */
export const resourceMetadataUrl = (resource: string): string => {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
};
