/**
 * @module One call through the gateway, worker side: admitted by the
 * session, forwarded to the upstream with the deployment's key, answered
 * to the harness as the upstream answered, and recorded in the session
 * before the harness hears the end of it (the unstreamed body, or a
 * stream's `data: [DONE]`), so an answer the harness got is never missing
 * from the record.
 */

import type { Context } from "hono";
import { type ErrorCode, RoostError } from "../../errors";
import type { AppEnv } from "../../http/env";
import { runOperation } from "../../http/gateway";
import type { JsonObject, JsonValue } from "../../json";
import { textWithin } from "../../read-within";
import { type Captured, captureResponse, StreamCapture } from "./capture";
import { openAIError, openAIErrorBody } from "./openai-error";
import type { ResolvedGateway } from "./options";
import { compactCall } from "./record";

export interface ChatBody {
  model: string;
  messages: JsonValue[];
  stream?: boolean;
  [key: string]: unknown;
}

interface Outcome {
  status: number;
  captured?: Captured;
  error?: { message: string; type: string };
}

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache"
};

const upstreamMessage = (text: string): string => {
  try {
    const body = JSON.parse(text) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    const m =
      typeof body.error === "object" ? body.error.message : body.message;
    if (typeof m === "string") return m.slice(0, 1000);
    if (typeof body.error === "string") return body.error.slice(0, 1000);
  } catch {
    // not JSON: its text, cut short
  }
  return text.slice(0, 1000);
};

/** A body read whole, refused past `cap` bytes (the stream cancelled). */
const readCapped = async (response: Response, cap: number): Promise<string> => {
  const text = await textWithin(response, cap);
  if (text === undefined)
    throw new RoostError(
      "model_error",
      `The model's answer passed the gateway's ${cap} bytes.`
    );
  return text;
};

/** What the harness sent, with the token fields asked for when the deployment says so. */
const forwarded = (body: ChatBody, gateway: ResolvedGateway): ChatBody =>
  gateway.tokenIds
    ? { ...body, return_token_ids: true, logprobs: body.logprobs ?? true }
    : body;

export const callModel = async (
  c: Context<AppEnv>,
  body: ChatBody,
  gateway: ResolvedGateway
): Promise<Response> => {
  const admitted = await runOperation(c, "modelAdmit", {
    max_calls: gateway.maxCalls,
    max_tokens: gateway.maxTokens,
    max_bytes: gateway.maxBytes
  });
  const upstream = gateway.upstream(c.env, admitted.environment);
  if (upstream === undefined)
    throw new RoostError(
      "unavailable",
      "This deployment has no model upstream: set ROOST_MODEL_BASE_URL (and ROOST_MODEL_API_KEY), or pass modelGateway({ upstream })."
    );
  const started = Date.now();
  const { messages, ...params } = body;
  const record = async (outcome: Outcome) => {
    const compacted = await compactCall(admitted.last, {
      params: params as JsonObject,
      messages,
      ms: Date.now() - started,
      ...outcome
    });
    await runOperation(c, "modelRecord", {
      episode: admitted.episode,
      ...compacted,
      model: body.model
    });
  };
  let response: Response;
  try {
    response = await fetch(
      `${upstream.baseUrl.replace(/\/+$/, "")}/chat/completions`,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(upstream.apiKey === undefined
            ? {}
            : { Authorization: `Bearer ${upstream.apiKey}` })
        },
        body: JSON.stringify(forwarded(body, gateway)),
        signal: AbortSignal.timeout(gateway.timeoutMs)
      }
    );
  } catch (error) {
    // Never the upstream's URL or key: what failed, and how.
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    const message = timedOut
      ? `The model did not answer within ${gateway.timeoutMs} ms.`
      : "The model upstream could not be reached.";
    await record({ status: 502, error: { message, type: "model_error" } });
    return openAIError(502, "model_error", message);
  }
  const streamed =
    body.stream === true &&
    response.ok &&
    (response.headers.get("Content-Type") ?? "").includes("text/event-stream");
  if (!streamed) {
    let text: string;
    try {
      text = await readCapped(response, gateway.responseBytes);
    } catch (error) {
      const message = (error as Error).message;
      await record({ status: 502, error: { message, type: "model_error" } });
      return openAIError(502, "model_error", message);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const captured = response.ok ? captureResponse(parsed) : undefined;
    await record({
      status: response.status,
      ...(captured === undefined ? {} : { captured }),
      ...(response.ok
        ? {}
        : {
            error: { message: upstreamMessage(text), type: "upstream_error" }
          })
    });
    return new Response(text, {
      status: response.status,
      headers: {
        "Content-Type":
          response.headers.get("Content-Type") ?? "application/json"
      }
    });
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  c.executionCtx.waitUntil(
    relay(response, writable, gateway.responseBytes, record)
  );
  return new Response(readable, { status: 200, headers: SSE_HEADERS });
};

const dataOf = (event: string): string | undefined => {
  const lines = event
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).replace(/^ /, ""));
  return lines.length === 0 ? undefined : lines.join("\n");
};

/**
 * Passes the upstream's events on as they come and keeps what they say;
 * the closing `data: [DONE]` goes out only once the call is recorded. A
 * failure (the upstream cut off, past the byte cap, the record refused)
 * ends the stream with an error event, which OpenAI's clients throw.
 */
const relay = async (
  response: Response,
  writable: WritableStream<Uint8Array>,
  cap: number,
  record: (outcome: Outcome) => Promise<void>
): Promise<void> => {
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const send = (text: string) => writer.write(encoder.encode(text));
  const capture = new StreamCapture();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let bytes = 0;
  let done = false;
  let failure: string | undefined;
  // The record's refusal keeps its code (a reset or the episode's end
  // meanwhile); everything else failed on the model's side.
  let failureCode: ErrorCode = "model_error";
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      bytes += read.value.byteLength;
      if (bytes > cap) {
        failure = `The model's answer passed the gateway's ${cap} bytes.`;
        await reader.cancel();
        break;
      }
      buffer += decoder
        .decode(read.value, { stream: true })
        .replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; ) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        const data = dataOf(event);
        if (data === "[DONE]") {
          done = true;
          continue;
        }
        if (data !== undefined) {
          try {
            capture.add(JSON.parse(data));
          } catch {
            // not JSON: passed on, not kept
          }
        }
        await send(`${event}\n\n`);
      }
    }
  } catch {
    failure ??= "The model's stream was cut off.";
  }
  try {
    await record({
      status: failure === undefined ? 200 : 502,
      captured: capture.finish(),
      ...(failure === undefined
        ? {}
        : { error: { message: failure, type: "model_error" } })
    });
  } catch (error) {
    if (failure === undefined) {
      failure =
        error instanceof RoostError
          ? error.message
          : "The call could not be recorded.";
      if (error instanceof RoostError) failureCode = error.code;
    }
  }
  try {
    if (failure !== undefined)
      await send(
        `data: ${JSON.stringify(openAIErrorBody(failureCode, failure))}\n\n`
      );
    else if (done) await send("data: [DONE]\n\n");
    await writer.close();
  } catch {
    // the harness went away: the call is recorded all the same
  }
};
