/** @module What an MCP method is handed besides its params: the request's revision and metadata, and the way back to its client while it runs. */

import type { SigningKeys } from "../../http/secrets";
import type { Revision } from "./revision";

/** A notification, or a request for the client, sent while a request runs. */
export type Outgoing =
  | { jsonrpc: "2.0"; method: string; params?: unknown }
  | { jsonrpc: "2.0"; id: string; method: string; params?: unknown };

export interface Exchange {
  readonly revision: Revision;
  /** The request's headers (a stateless call's parameter headers). */
  readonly headers: Headers;
  /** The request's `_meta`: a stateless client's capabilities, a progress token. */
  readonly meta: Record<string, unknown> | undefined;
  /**
   * Sends the client a message on this request's stream (the answer then
   * comes as server-sent events); undefined when the client takes no stream.
   */
  readonly send: ((message: Outgoing) => void) | undefined;
  /** Seal and open requestState (request-state.ts). */
  keys(): Promise<SigningKeys>;
  /** The session credential a stateless call runs in, when the endpoint's URL names none. */
  readonly session?: string;
}
