/** @module What the Agents SDK contender's set-up call answers (shared by the Agent and the scenario). */

export interface Growth {
  items: number;
  /** Bytes of the state's JSON (the row the SDK writes). */
  bytes: number;
  /** Why the state was refused; null when it was written. */
  error: string | null;
}
