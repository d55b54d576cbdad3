/**
 * @module The requestState of an input-required result (2026-07-28): what
 * a stateless client must send back with its answers for the call to go
 * on. It carries the answers so far, the call it belongs to and, on an
 * environment's endpoint, the session the call runs in, sealed with an
 * HMAC (ROOST_SECRETS): a client can read it but not change it, and a
 * state made for one prompt or tool is refused for another.
 */

import type { SigningKeys } from "../../http/secrets";
import {
  signToken,
  textFromBase64Url,
  toBase64Url,
  verifyMac
} from "../../http/token";
import type { JsonObject } from "../../json";

/** How long a client may take to answer before it must start again. */
const STATE_TTL_MS = 60 * 60_000;

export interface RequestState {
  /** `tools/call` or `prompts/get`, and the tool's or prompt's name. */
  method: string;
  name: string;
  /** Every answer given in earlier rounds, by the name it was asked with. */
  answers: Record<string, JsonObject>;
  /** The session's credential, when the endpoint's URL names none. */
  session?: string;
}

interface Sealed extends RequestState {
  expires: number;
}

// A domain of its own, so no other signed kind can pass for one.
const signed = (payload: string) => `mcp-request-state:${payload}`;

const encode = (text: string): string =>
  toBase64Url(new TextEncoder().encode(text));

export const sealState = async (
  keys: SigningKeys,
  state: RequestState,
  now = Date.now()
): Promise<string> => {
  const payload = encode(
    JSON.stringify({ ...state, expires: now + STATE_TTL_MS } satisfies Sealed)
  );
  return `${payload}~${await signToken(keys, signed(payload))}`;
};

/**
 * The state a client sent back, if it is one Roost sealed, unexpired and
 * for this call; `undefined` for anything else (tampered, stale, another
 * call's), which the caller refuses.
 */
export const openState = async (
  keys: SigningKeys,
  sent: string,
  call: { method: string; name: string },
  now = Date.now()
): Promise<RequestState | undefined> => {
  const [payload, mac, ...rest] = sent.split("~");
  if (payload === undefined || mac === undefined || rest.length > 0)
    return undefined;
  if (!(await verifyMac(keys, signed(payload), mac))) return undefined;
  const text = textFromBase64Url(payload);
  if (text === undefined) return undefined;
  const state = JSON.parse(text) as Sealed;
  if (
    state.expires <= now ||
    state.method !== call.method ||
    state.name !== call.name
  )
    return undefined;
  const { expires: _, ...open } = state;
  return open;
};
