/**
 * @module A call's record made compact before it is stored: messages the
 * previous call's request already held, and prompt tokens that are the
 * previous call's whole sequence, are counted rather than kept again, so
 * an episode's record grows with what is new in each turn, not with its
 * whole context every turn. The comparison is by hash: the session keeps
 * the previous call's counts and hashes (model-call-rows.ts), not its text.
 */

import type { JsonObject, JsonValue } from "../../json";
import type { ModelCall } from "../../protocol/model-calls";
import type { CallMark } from "../../storage/model-call-rows";
import { MAX_VALUE_BYTES } from "../../storage/row-text";
import type { Captured } from "./capture";

const hex = (buffer: ArrayBuffer): string =>
  [...new Uint8Array(buffer)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

const sha256 = async (data: string | Uint8Array): Promise<string> =>
  hex(
    await crypto.subtle.digest(
      "SHA-256",
      typeof data === "string" ? new TextEncoder().encode(data) : data
    )
  );

const hashMessages = (messages: readonly JsonValue[]) =>
  sha256(JSON.stringify(messages));

const hashTokens = (ids: readonly number[]) =>
  sha256(new Uint8Array(Int32Array.from(ids).buffer));

/** A call's record before the session numbers it. */
export type CallRecord = Omit<ModelCall, "call" | "episode" | "step" | "at">;

export interface Compacted {
  record: CallRecord;
  mark: Omit<CallMark, "call" | "usedTokens" | "usedBytes">;
  /** The prompt does not extend the previous call's tokens. */
  broke: boolean;
}

export const compactCall = async (
  last: CallMark | undefined,
  call: {
    params: JsonObject;
    messages: JsonValue[];
    status: number;
    ms: number;
    captured?: Captured;
    error?: { message: string; type: string };
  }
): Promise<Compacted> => {
  const { messages, captured } = call;
  // A failed call (any status but 2xx, a stream cut off included) gives no
  // tokens: the harness never received the answer, so it is not trained
  // on, and the next call is compared with the sequence before it. What
  // the harness read of it stays in `response`.
  const failed = call.status < 200 || call.status > 299;
  const messagesFrom =
    last !== undefined &&
    last.messages > 0 &&
    messages.length >= last.messages &&
    (await hashMessages(messages.slice(0, last.messages))) === last.messagesHash
      ? last.messages
      : 0;
  const tokens = failed ? undefined : captured?.tokens;
  const promptFrom =
    tokens !== undefined &&
    last !== undefined &&
    last.tokens > 0 &&
    tokens.prompt.length >= last.tokens &&
    (await hashTokens(tokens.prompt.slice(0, last.tokens))) === last.tokensHash
      ? last.tokens
      : 0;
  const whole = tokens && [...tokens.prompt, ...tokens.completion];
  const record: CallRecord = {
    ms: call.ms,
    ...(last === undefined ? {} : { base: last.call }),
    request: {
      params: call.params,
      messages_from: messagesFrom,
      messages: messages.slice(messagesFrom)
    },
    status: call.status,
    ...(captured === undefined ? {} : { response: captured.response }),
    ...(call.error === undefined ? {} : { error: call.error }),
    ...(tokens === undefined
      ? {}
      : {
          tokens: {
            prompt_from: promptFrom,
            prompt: tokens.prompt.slice(promptFrom),
            completion: tokens.completion,
            ...(tokens.logprobs === undefined
              ? {}
              : { logprobs: tokens.logprobs })
          }
        })
  };
  return {
    record: withinRow(record),
    // A call without tokens (refused, failed) passes the previous call's
    // sequence on: the next prompt is compared with what the model saw last.
    mark: {
      messages: messages.length,
      messagesHash: await hashMessages(messages),
      tokens: whole?.length ?? last?.tokens ?? 0,
      tokensHash: whole ? await hashTokens(whole) : (last?.tokensHash ?? "")
    },
    broke:
      tokens !== undefined &&
      last !== undefined &&
      last.tokens > 0 &&
      promptFrom === 0
  };
};

const size = (record: CallRecord) =>
  new TextEncoder().encode(JSON.stringify(record)).byteLength;

/**
 * The record under a stored row's size, shedding what a trainer needs
 * least first: the request's new messages (the response and the tokens
 * say what the model saw and did), then the logprobs, then the tokens,
 * then the response. Each shed part is named in `omitted`.
 */
const withinRow = (record: CallRecord): CallRecord => {
  const room = MAX_VALUE_BYTES - 512;
  const omitted: string[] = [];
  let r = record;
  const shed = (what: string, next: CallRecord) => {
    if (size(r) <= room) return;
    omitted.push(what);
    r = { ...next, omitted };
  };
  shed("request.messages", {
    ...r,
    request: { ...r.request, messages: [] }
  });
  if (r.tokens?.logprobs !== undefined) {
    const { logprobs: _, ...tokens } = r.tokens;
    shed("tokens.logprobs", { ...r, tokens });
  }
  if (r.tokens !== undefined) {
    const { tokens: _, ...rest } = r;
    shed("tokens", rest);
  }
  if (r.response !== undefined) {
    const { response: _, ...rest } = r;
    shed("response", rest);
  }
  return r;
};
