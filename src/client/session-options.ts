/** @module The options and shapes of a session handle's writes. */

import type { JsonObject } from "../json";
import type { Scope } from "../protocol";

/** A token minted by `mintToken`. */
export interface ScopedToken {
  token: string;
  scope: Scope;
  /** The agent it is, when minted for one. */
  agent?: string;
  /** ISO 8601: the server refuses the token from then on. */
  expiresAt: string;
}

/** Options of every mutating call. */
export interface MutationOptions {
  /**
   * Makes a retry (yours or the client's own, after a network error or a
   * 503) return the first response instead of running again. The client
   * sends a fresh key when none is given.
   */
  idempotencyKey?: string;
}

export interface StoreWrite {
  objects: JsonObject[];
  metadata?: JsonObject;
  /** `table`, `document` or a type of your own; sent as `payload_type`. */
  payloadType?: string;
  /** `{ displayField: dataField }` for frontends; the objects are stored whole. */
  mapping?: Record<string, string>;
}

/** A write as the wire spells it. */
export const writeBody = ({ payloadType, ...rest }: StoreWrite) =>
  payloadType === undefined ? rest : { ...rest, payload_type: payloadType };

export const indexSegment = (index: number | undefined): string =>
  index === undefined ? "" : `/${index}`;
