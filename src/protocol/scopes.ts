/**
 * @module What a credential may do with its session. Each operation in the
 * table names the scope it needs; a token carries one scope, an API key
 * and a session's first token carry `control`.
 *
 * The scopes are not a ladder: `observe` is in all of them but `model`,
 * and `act` in `control`, but reading the hidden store is `grade`'s
 * alone. A control token can mint a grade token, so a grader is always
 * handed one on purpose, and nothing that merely controls a session ever
 * shows the store the model must not see. `model` calls the session's
 * model gateway and nothing else: it is the key a harness that knows only
 * a base URL and a key is given (`act` and `control` hold it too).
 *
 * No zod here: the inspector and the chat app bundle what pages read of
 * it (credential-scope.ts); the schema is http-tokens.ts's.
 */

export const SCOPES = ["observe", "act", "grade", "control", "model"] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * A scoped session token: `<scope>[~<agent>].<issued ms, base 36>.<expiry
 * s, 0 for never>.v1.<kid>.<mac>`. The scope, and the one agent of a
 * multi-agent session the token acts and sees as, are spelled out in
 * front and covered by the mac, so a page may read them
 * (credential-scope.ts) and the worker verify them (http/scoped-token.ts)
 * from this one pattern. `~` joins them: a WebSocket client refuses a
 * subprotocol (`roost.token.<token>`) holding `@`, and `~` is a token
 * character there, unreserved in a URL, and in no scope's or agent's name.
 */
export const SCOPED_TOKEN =
  /^(observe|act|grade|control|model)(?:~([a-zA-Z0-9_-]{1,64}))?\.([0-9a-z]{1,11})\.(\d{1,12})\.(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

export const isScope = (value: string): value is Scope =>
  (SCOPES as readonly string[]).includes(value);

/** The scopes a credential of each scope holds, itself included. */
const HOLDS: Record<Scope, readonly Scope[]> = {
  observe: ["observe"],
  act: ["observe", "act", "model"],
  grade: ["observe", "grade"],
  control: ["observe", "act", "control", "model"],
  model: ["model"]
};

/** Whether a credential of scope `have` may run an operation that needs `need`. */
export const allows = (have: Scope, need: Scope): boolean =>
  HOLDS[have].includes(need);

/** What a verified credential grants, handed with every call to the session. */
export interface Grant {
  scope: Scope;
  /**
   * When the token was signed, in ms since the epoch by the session's
   * clock: revoking a scope refuses its tokens signed before the cutoff.
   * 0 for a session's first token, which has no time in it.
   */
  issuedAt: number;
  /** Seconds since the epoch after which it is refused; never, if absent. */
  expiresAt?: number;
  /** An API key: the operator's, so no session's revocation reaches it. */
  apiKey?: true;
  /**
   * The one agent of a multi-agent session this credential is: it steps
   * only as that agent. Only `observe` and `act` tokens carry one.
   */
  agent?: string;
}

/** What the server's own calls hold (creation, a fork's copies). */
export const SERVER_GRANT: Grant = {
  scope: "control",
  issuedAt: 0,
  apiKey: true
};
