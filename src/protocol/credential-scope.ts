/**
 * @module What a page can tell from the credential it holds, before asking:
 * the scope a token carries and the scope each session action needs, so a
 * view hides the controls its credential cannot use. The server decides
 * every call; this only keeps a page from offering a button that answers
 * 403. No zod here: the inspector and the chat app bundle it.
 */

import { allows, SCOPED_TOKEN, type Scope } from "./scopes";

/**
 * The scope `credential` holds: a scoped token's own; `control` for a
 * session's first token (`v1.…`) and for an API key, which hold it.
 */
export const scopeOfCredential = (credential: string): Scope =>
  (SCOPED_TOKEN.exec(credential)?.[1] as Scope | undefined) ?? "control";

/** The agent a token of one agent (`act~x.…`) acts or looks as; undefined for any other. */
export const agentOfCredential = (credential: string): string | undefined =>
  SCOPED_TOKEN.exec(credential)?.[2];

/**
 * The scope each thing a page does with a session needs, as the server's
 * operations declare it. Reading and the event stream are everyone's;
 * steps, direct tool calls, chat and cancelling a run are `act`'s; a
 * reset, a decision-tree run, a fork, writes to the state or the store,
 * deleting and handing out tokens are `control`'s; the hidden store is
 * `grade`'s alone.
 */
export const ACTION_SCOPES = {
  read: "observe",
  step: "act",
  call: "act",
  chat: "act",
  cancelRun: "act",
  reset: "control",
  run: "control",
  fork: "control",
  editState: "control",
  editStore: "control",
  delete: "control",
  mintToken: "control",
  revokeTokens: "control",
  hidden: "grade"
} as const satisfies Record<string, Scope>;

export type SessionAction = keyof typeof ACTION_SCOPES;

/** Whether a credential of scope `scope` may do `action`. */
export const scopeCan = (scope: Scope, action: SessionAction): boolean =>
  allows(scope, ACTION_SCOPES[action]);
