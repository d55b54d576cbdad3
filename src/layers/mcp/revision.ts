/**
 * @module Which MCP revision a request speaks, read from the request alone:
 * the stateless revisions (2026-07-28) name themselves on every request,
 * in `_meta` and in headers that must agree with the body; the older ones
 * negotiated at initialize and send the MCP-Protocol-Version header.
 */

import {
  JSONRPC_ERRORS,
  type JsonRpcError,
  type JsonRpcMessage,
  MCP_META,
  MCP_METHOD_HEADER,
  MCP_MODERN_VERSIONS,
  MCP_NAME_HEADER,
  MCP_PROTOCOL_VERSIONS,
  MCP_VERSION_HEADER
} from "../../protocol";

export type Revision =
  | { modern: false; version: string }
  | { modern: true; version: string };

/** Every revision served, newest first: what server/discover and a -32022 list. */
export const SUPPORTED_VERSIONS: readonly string[] = [
  ...MCP_MODERN_VERSIONS,
  ...MCP_PROTOCOL_VERSIONS
];

/** What a revision check refuses (always answered 400): the JSON-RPC error. */
export interface RevisionRefusal {
  error: JsonRpcError;
}

/** The spec's default for a request without the version header. */
const UNNAMED_LEGACY = "2025-03-26";

/**
 * The param a stateless request's Mcp-Name header repeats, per method it
 * serves: tasks/result is 2025-11-25's, answered -32601 here, so its
 * header is not asked for first.
 */
const NAMED_BY: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId"
};

const objectOr = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** A request's `_meta`, if its params carry one. */
export const requestMeta = (
  message: JsonRpcMessage
): Record<string, unknown> | undefined =>
  objectOr(objectOr(message.params)?._meta);

const refuse = (
  code: number,
  message: string,
  data?: unknown
): RevisionRefusal => ({
  error: { code, message, ...(data === undefined ? {} : { data }) }
});

/** A header's value without the optional whitespace around it (RFC 9110 §5.5). */
const header = (headers: Headers, name: string): string | null =>
  headers.get(name)?.trim() ?? null;

const isModern = (version: string | null | undefined): boolean =>
  (MCP_MODERN_VERSIONS as readonly string[]).includes(version ?? "");

/**
 * The request's revision, or why it is refused. A request is stateless
 * when it says so: its `_meta` names a protocol version, its header names
 * a stateless revision, or it is server/discover. Its routing headers are
 * checked before its version, so a client of a newer revision still learns
 * which versions are served from the -32022's `data.supported`.
 */
export const readRevision = (
  headers: Headers,
  message: JsonRpcMessage
): Revision | RevisionRefusal => {
  const version = header(headers, MCP_VERSION_HEADER);
  const meta = requestMeta(message);
  const metaVersion = meta?.[MCP_META.protocolVersion];
  const stateless =
    metaVersion !== undefined ||
    isModern(version) ||
    message.method === "server/discover";
  if (!stateless) {
    if (
      version !== null &&
      !(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version)
    ) {
      return refuse(
        JSONRPC_ERRORS.invalidRequest,
        `Unsupported ${MCP_VERSION_HEADER} ${version}; supported: ${SUPPORTED_VERSIONS.join(", ")}.`
      );
    }
    return { modern: false, version: version ?? UNNAMED_LEGACY };
  }
  const method = header(headers, MCP_METHOD_HEADER);
  if (method !== message.method) {
    return refuse(
      JSONRPC_ERRORS.headerMismatch,
      method === null
        ? `Missing ${MCP_METHOD_HEADER} header: a stateless request repeats its method there.`
        : `${MCP_METHOD_HEADER} ${method} does not match the body's method ${message.method}.`
    );
  }
  const param = NAMED_BY[message.method];
  if (param !== undefined) {
    const named = objectOr(message.params)?.[param];
    const name = header(headers, MCP_NAME_HEADER);
    if (typeof named === "string" && name !== named) {
      return refuse(
        JSONRPC_ERRORS.headerMismatch,
        name === null
          ? `Missing ${MCP_NAME_HEADER} header: ${message.method} repeats its ${param} there.`
          : `${MCP_NAME_HEADER} ${name} does not match the body's ${param}.`
      );
    }
  }
  if (
    typeof metaVersion !== "string" ||
    objectOr(meta?.[MCP_META.clientCapabilities]) === undefined
  ) {
    return refuse(
      JSONRPC_ERRORS.invalidParams,
      `A stateless request carries params._meta["${MCP_META.protocolVersion}"] (a string) and params._meta["${MCP_META.clientCapabilities}"] (an object).`
    );
  }
  if (version !== metaVersion) {
    return refuse(
      JSONRPC_ERRORS.headerMismatch,
      `${MCP_VERSION_HEADER} ${version ?? "(missing)"} does not match _meta's protocol version ${metaVersion}.`
    );
  }
  if (!isModern(metaVersion)) {
    return refuse(
      JSONRPC_ERRORS.unsupportedVersion,
      `Unsupported protocol version ${metaVersion}: send initialize for ${MCP_PROTOCOL_VERSIONS.join(", ")}, or server/discover for ${MCP_MODERN_VERSIONS.join(", ")}.`,
      { supported: SUPPORTED_VERSIONS, requested: metaVersion }
    );
  }
  return { modern: true, version: metaVersion };
};

export const isRefusal = (
  r: Revision | RevisionRefusal
): r is RevisionRefusal => "error" in r;
