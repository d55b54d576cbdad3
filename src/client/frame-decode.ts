/** @module What arrives on the session socket, decoded: a frame's JSON object, and a close code as the client's error code. */

import { CLOSE_CODES } from "../protocol";
import { frameText } from "./websocket-like";

/** A frame's JSON object, or undefined when it is not a JSON object with a `type`. */
export const decodeFrame = (data: unknown): { type: unknown } | undefined => {
  const text = frameText(data);
  if (text === undefined) return undefined;
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof frame === "object" && frame !== null && "type" in frame
    ? frame
    : undefined;
};

const CLOSE_ERRORS = {
  [CLOSE_CODES.invalid_request]: "invalid_request",
  [CLOSE_CODES.unauthorized]: "unauthorized",
  [CLOSE_CODES.forbidden]: "forbidden",
  [CLOSE_CODES.session_gone]: "not_found",
  [CLOSE_CODES.frame_too_large]: "payload_too_large"
} as const;

/** The client's error code for a close code that ends the socket for good. */
export const closeErrorCode = (code: number) =>
  CLOSE_ERRORS[code as keyof typeof CLOSE_ERRORS] ?? "disconnected";
