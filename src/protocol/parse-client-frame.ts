/** @module Turns one WebSocket message into a client frame, or the error to send back. Never throws. */

import type { ErrorBody } from "../errors";
import { utf8Length } from "../json";
import {
  CLIENT_FRAME_TYPES,
  type ClientFrame,
  ClientFrameSchema
} from "./client-frames";
import { issuesToErrorBody } from "./error-body";
import { checkJsonLimits } from "./json-value";
import { DEFAULT_LIMITS, type Limits } from "./limits";

export type ParsedClientFrame =
  | { ok: true; frame: ClientFrame }
  /** `id` is the bad frame's id when it had a readable one, so the client can fail that request. */
  | { ok: false; error: ErrorBody; id?: string };

export type FrameLimits = Pick<
  Limits,
  "wsFrameBytes" | "jsonDepth" | "stringBytes"
>;

/**
 * Checks in order of cost: size, JSON syntax, depth and string sizes, then
 * the frame's shape. Binary messages are read as UTF-8 text.
 *
 * @example
 * const parsed = parseClientFrame(message);
 * if (!parsed.ok) {
 *   const { error, id } = parsed;
 *   ws.send(JSON.stringify({ type: "protocol.error", error, id }));
 * }
 */
export const parseClientFrame = (
  message: string | ArrayBuffer,
  limits: FrameLimits = DEFAULT_LIMITS
): ParsedClientFrame => {
  const max = limits.wsFrameBytes;
  if (
    typeof message === "string"
      ? textTooLong(message, max)
      : message.byteLength > max
  ) {
    return fail({
      code: "payload_too_large",
      message: `Frame is over the ${max}-byte limit.`,
      details: { limit: "wsFrameBytes", max: limits.wsFrameBytes }
    });
  }
  const value = readJson(message);
  if (!value.ok) return value;
  const id = readId(value.json);
  const tooLarge = checkJsonLimits(value.json, limits);
  if (tooLarge) return fail(tooLarge, id);
  if (!isRecord(value.json) || typeof value.json.type !== "string") {
    return fail(invalid('A frame is a JSON object with a string "type".'), id);
  }
  const type = value.json.type;
  if (!(CLIENT_FRAME_TYPES() as readonly string[]).includes(type)) {
    return fail(
      invalid(
        `Unknown frame type "${type.slice(0, 64)}"; expected one of ${CLIENT_FRAME_TYPES().join(", ")}.`
      ),
      id
    );
  }
  const parsed = ClientFrameSchema().safeParse(value.json);
  if (!parsed.success) {
    return fail(issuesToErrorBody(parsed.error, `${type} frame`), id);
  }
  return { ok: true, frame: parsed.data };
};

// A UTF-16 unit is 1 to 3 UTF-8 bytes, so most frames are sized without encoding.
const textTooLong = (text: string, max: number): boolean =>
  text.length * 3 <= max ? false : text.length > max || utf8Length(text) > max;

const readJson = (
  message: string | ArrayBuffer
): { ok: true; json: unknown } | { ok: false; error: ErrorBody } => {
  try {
    const text =
      typeof message === "string"
        ? message
        : new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
            message
          );
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return fail({
      code: "invalid_json",
      message: "Frame is not valid JSON (UTF-8 text)."
    });
  }
};

const readId = (json: unknown): string | undefined =>
  isRecord(json) &&
  typeof json.id === "string" &&
  json.id.length > 0 &&
  json.id.length <= 256
    ? json.id
    : undefined;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const invalid = (message: string): ErrorBody => ({
  code: "invalid_request",
  message
});

const fail = (
  error: ErrorBody,
  id?: string
): { ok: false; error: ErrorBody; id?: string } =>
  id === undefined ? { ok: false, error } : { ok: false, error, id };
