/**
 * @module Asking the client that called a tool, mid-call: MCP's elicitation
 * (a question for the user), sampling (a completion from the client's
 * model) and roots (the client's folders). A client of the handshake era
 * is asked over the call's stream; a stateless one (2026-07-28) gets an
 * input-required result and calls again with the answers, the call running
 * again from its start: so a tool asks before it changes anything.
 */

import type { JsonObject } from "../json";

/** The requests a tool may send a client, and the capability each needs. */
export const CLIENT_METHODS = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
} as const;

export type ClientMethod = keyof typeof CLIENT_METHODS;

/** One request for the client: MCP's method and its params. */
export interface ClientRequest {
  method: ClientMethod;
  params?: JsonObject;
}

/** The client that called, when it can be asked (an MCP client). */
export interface CallerClient {
  /** What the client declared it can answer (MCP's ClientCapabilities): ask only for what is here. */
  readonly capabilities: JsonObject;
  /**
   * Asks the client, by names of your choosing: `{ name: request }`
   * answers `{ name: result }` (an elicitation's `{ action, content }`, a
   * sampling's message, the roots). The names identify the questions
   * across a stateless client's calls: one name, one question.
   */
  ask(
    requests: Record<string, ClientRequest>
  ): Promise<Record<string, JsonObject>>;
}

/**
 * Ends a call without a tool message: nothing it did is kept, and the
 * caller is answered instead. Never caught by the executor.
 */
export abstract class CallInterrupted extends Error {}

/** The client must answer these first (a stateless client calls again with the answers). */
export class InputRequired extends CallInterrupted {
  constructor(readonly requests: Record<string, ClientRequest>) {
    super(`The client must answer ${Object.keys(requests).join(", ")} first.`);
  }
}

/** The tool asked for what the client did not declare (MCP's -32021). */
export class MissingCapability extends CallInterrupted {
  constructor(readonly capabilities: Record<string, JsonObject>) {
    super(
      `This tool needs the client capabilities ${Object.keys(capabilities).join(", ")}, which the client did not declare.`
    );
  }
}

/**
 * Refuses the call: a client that called the tool directly gets a
 * protocol error, not a result (nothing the call did is kept; an MCP task
 * ends failed); in a model's step the model reads it as a failed call.
 */
export class CallRefused extends CallInterrupted {}

/** The capabilities `requests` need that `declared` lacks. */
export const missingCapabilities = (
  declared: JsonObject,
  requests: Record<string, ClientRequest>
): Record<string, JsonObject> => {
  const missing: Record<string, JsonObject> = {};
  for (const { method } of Object.values(requests)) {
    const need = CLIENT_METHODS[method];
    if (need === undefined) continue;
    const has = declared[need];
    if (typeof has !== "object" || has === null) missing[need] = {};
  }
  return missing;
};
