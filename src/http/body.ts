/** @module Reading a JSON request body: media type, size, syntax and depth, before any schema sees it. */

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { fromErrorBody, RoostError } from "../errors";
import { checkJsonLimits } from "../protocol";
import type { AppEnv } from "./env";

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

const mediaTypeOf = (header: string | undefined): string | undefined =>
  header?.split(";")[0]?.trim().toLowerCase() || undefined;

const tooLarge = (max: number): RoostError =>
  new RoostError(
    "payload_too_large",
    `The request body is larger than ${max} bytes.`,
    { limit: "requestBodyBytes", max }
  );

/** One decoder for every request: without `stream`, each decode starts afresh. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const decodeUtf8 = (bytes: Uint8Array): string => {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new RoostError("invalid_json", "The request body is not UTF-8.");
  }
};

/** Reads at most `max` bytes; a longer body stops the read and throws. */
export const readCapped = async (
  request: Request,
  max: number
): Promise<string> => {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > max) throw tooLarge(max);
  if (request.body === null) return "";
  if (declared !== null) {
    // The platform holds a body to its declared length, so it can be read
    // in one native call; the size is checked again all the same.
    const whole = new Uint8Array(await request.arrayBuffer());
    if (whole.byteLength > max) throw tooLarge(max);
    return decodeUtf8(whole);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeUtf8(bytes);
};

/**
 * Reads the request's JSON body once and answers it parsed: 415 for a body
 * that is not JSON, 413 past `limits.requestBodyBytes` (declared or actually
 * read), 400 `invalid_json` for bad syntax and 413 for JSON nested too deep
 * or with too long a string. An empty body reads as `{}`, so routes whose
 * fields are all optional (reset, a tool without arguments) need none.
 */
export const readJsonBody = async (c: Context<AppEnv>): Promise<unknown> => {
  // c.get, not c.var: Hono builds a fresh object for every c.var read.
  const limits = c.get("limits");
  const mediaType = mediaTypeOf(c.req.header("Content-Type"));
  if (mediaType !== undefined && !JSON_MEDIA_TYPE.test(mediaType)) {
    throw new RoostError(
      "unsupported_media_type",
      `Send the body as JSON with Content-Type: application/json (got ${mediaType}).`
    );
  }
  const raw = await readCapped(c.req.raw, limits.requestBodyBytes);
  if (mediaType === undefined && raw !== "") {
    throw new RoostError(
      "unsupported_media_type",
      "Send the body as JSON with Content-Type: application/json."
    );
  }
  let parsed: unknown = {};
  if (raw.trim() !== "") {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new RoostError(
        "invalid_json",
        "The request body is not valid JSON."
      );
    }
  }
  const limitError = checkJsonLimits(parsed, limits);
  if (limitError) throw fromErrorBody(limitError);
  // A later reader gets the body through Hono's cache, which holds
  // promises although its type says strings. An empty JSON body must read
  // there as {} too.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(
    raw.trim() === "" && mediaType !== undefined ? "{}" : raw
  );
  return parsed;
};

/**
 * A route's JSON body: list it last in the route's middleware. The route
 * is then registered with `readJsonBody` and its schema checks fused into
 * one middleware (define-route.ts), so this one never runs on its own
 * there; elsewhere it reads the body for Hono's validators.
 */
export const jsonBody = createMiddleware<AppEnv>(async (c, next) => {
  await readJsonBody(c);
  await next();
});
