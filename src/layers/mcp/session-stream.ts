/**
 * @module The worker's side of a tool called by an MCP client: the call
 * sent to the session's object (session-call.ts), its frames read as they
 * come (updates and live asks to the caller's stream), its outcome
 * answered or thrown as the `call` operation's would be.
 */

import {
  type ErrorBody,
  fromErrorBody,
  isErrorCode,
  RoostError
} from "../../errors";
import type { SessionGateway } from "../../http/gateway";
import { RETRY_AFTER_SECONDS } from "../../http/gateway";
import type { JsonObject } from "../../json";
import type { ToolInvocationResponse } from "../../protocol";
import type { LogLevel } from "../../store/result";
import { InputRequired, MissingCapability } from "../../tools/ask";
import { type CallFrame, MCP_CALL_PATH, type McpCall } from "./session-call";

/** How a call reaches its client while it runs. */
export interface CallChannel {
  /** A stateless request's declared capabilities; absent in the handshake era (kept from initialize). */
  capabilities?: JsonObject;
  /** Whether the client can be asked over this call's stream. */
  live: boolean;
  /** A stateless client's answers so far. */
  answers?: Record<string, JsonObject>;
  logLevel?: LogLevel;
  /** Each update and live ask, as the call makes them. */
  onFrame(
    frame: Extract<
      CallFrame,
      { update: unknown } | { ask: unknown } | { updated: unknown }
    >
  ): void;
}

const broken = (): RoostError =>
  new RoostError(
    "unavailable",
    "The call's stream broke before its answer: it may have run (read the session's events).",
    { retry_after_seconds: RETRY_AFTER_SECONDS }
  );

/** Lines of a byte stream, each as it completes. */
async function* lines(body: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\n");
    }
  }
}

export const streamedCall = async (
  session: SessionGateway,
  tool: string,
  args: JsonObject,
  channel: CallChannel
): Promise<ToolInvocationResponse> => {
  const call: McpCall = {
    tool,
    arguments: args,
    live: channel.live,
    ...(channel.capabilities === undefined
      ? {}
      : { capabilities: channel.capabilities }),
    ...(channel.answers === undefined ? {} : { answers: channel.answers }),
    ...(channel.logLevel === undefined ? {} : { log_level: channel.logLevel })
  };
  let response: Response;
  try {
    response = await session.fetch(
      new Request(new URL(MCP_CALL_PATH, "https://session"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(call)
      })
    );
  } catch {
    throw broken();
  }
  if (!response.ok || response.body === null) {
    // The object's refusal: `{ error }`.
    const body = (await response.json().catch(() => undefined)) as
      | { error?: ErrorBody }
      | undefined;
    const error = body?.error;
    if (error !== undefined && isErrorCode(error.code)) {
      throw fromErrorBody(error);
    }
    throw broken();
  }
  try {
    for await (const line of lines(response.body)) {
      if (line === "") continue;
      const frame = JSON.parse(line) as CallFrame;
      if ("done" in frame) return frame.done;
      if ("input" in frame) throw new InputRequired(frame.input);
      if ("missing" in frame) throw new MissingCapability(frame.missing);
      if ("error" in frame) throw fromErrorBody(frame.error);
      channel.onFrame(frame);
    }
  } catch (error) {
    if (
      error instanceof RoostError ||
      error instanceof InputRequired ||
      error instanceof MissingCapability
    )
      throw error;
    throw broken();
  }
  throw broken();
};
