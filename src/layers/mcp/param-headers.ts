/**
 * @module SEP-2243's parameter headers (2026-07-28): a tool's parameter
 * annotated `x-mcp-header: "Region"` in its schema (in zod:
 * `.meta({ "x-mcp-header": "Region" })`) travels also as the header
 * `Mcp-Param-Region`, so an HTTP intermediary can route on it without
 * reading the body. The header must say what the body says: literally, or
 * as `=?base64?<strict base64 of the UTF-8>?=`; else 400 with -32020.
 */

import { textFromBase64Url } from "../../http/token";
import type { JsonObject } from "../../json";
import { JSONRPC_ERRORS } from "../../protocol";
import type { OpenAITool } from "../../tools/json-schema";
import { RpcFailure } from "./failure";

const ENCODED = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The header's value as text, or undefined when its base64 is not strict. */
const decode = (value: string): string | undefined => {
  const encoded = ENCODED.exec(value)?.[1];
  if (encoded === undefined) return value;
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  return textFromBase64Url(
    encoded.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
  );
};

const mismatch = (message: string): RpcFailure =>
  new RpcFailure({ code: JSONRPC_ERRORS.headerMismatch, message });

/** Refuses a call whose parameter headers disagree with its arguments. */
export const checkParamHeaders = (
  tool: OpenAITool | undefined,
  args: JsonObject,
  headers: Headers
): void => {
  const properties = (tool?.function.parameters.properties ?? {}) as Record<
    string,
    { "x-mcp-header"?: unknown }
  >;
  for (const [param, schema] of Object.entries(properties)) {
    const suffix = schema["x-mcp-header"];
    if (typeof suffix !== "string") continue;
    const header = `Mcp-Param-${suffix}`;
    const sent = headers.get(header)?.trim();
    const value = args[param];
    if (sent === undefined || sent === null) {
      if (value === undefined) continue;
      throw mismatch(`Missing ${header} header: it repeats ${param}.`);
    }
    const text = decode(sent);
    if (text === undefined) {
      throw mismatch(`${header} is not strict base64 inside =?base64?…?=.`);
    }
    if (value === undefined || text !== String(value)) {
      throw mismatch(`${header} does not match the arguments' ${param}.`);
    }
  }
};
