/**
 * @module The worker's way to a session: operations by name, each sent
 * again after a platform error only when its entry in the operation table
 * says that is safe, and the start of a session. Every transport (HTTP
 * routes, MCP, OpenEnv, Aviary, chat) calls sessions through here; a fork's
 * driver (fork-driver.ts) does not, sending each call once, to the source
 * through `sessionStub` and to the copies through stubs of its own.
 */

import type { Context } from "hono";
import type { TaskRef } from "../environment/task";
import { fromErrorBody, RoostError } from "../errors";
import type { InitialState, Jurisdiction } from "../protocol";
import { type Grant, SERVER_GRANT } from "../protocol/scopes";
import { withGrant } from "../session/grant-header";
import {
  IDEMPOTENCY_HEADER,
  knownOperation,
  type OperationInput,
  type OperationName,
  type OperationOutput
} from "../session/operations";
import type { RpcResult } from "../session/rpc";
import type { SessionObject } from "../session/session-object";
import type { AppEnv } from "./env";
import { signingKeys } from "./secrets";
import { signToken } from "./token";

/**
 * What the worker may call on a session's object: `op` (every operation,
 * through the table) and `fetch` (socket upgrades, chat streams). Workers'
 * own stub typing recurses through the JSON and message types deeper than
 * tsc allows; the methods take and return plain data, so at runtime the
 * shapes are these.
 */
export type SessionStub = Pick<SessionObject, "op" | "fetch">;

/** Seconds a client should wait after a 503 caused by the platform. */
export const RETRY_AFTER_SECONDS = 1;

/** Attempts in all, each with a fresh stub (a broken stub stays broken). */
export const MAX_ATTEMPTS = 3;

/** The wait before the second attempt; it doubles after that. */
const FIRST_BACKOFF_MS = 25;

/** One session's object, as a transport uses it. */
export interface SessionGateway {
  readonly id: DurableObjectId;
  /** What the caller's credential grants (the object checks it again). */
  readonly grant: Grant;
  /**
   * Runs operation `name` and answers its value, throwing its RoostError.
   * `key` is the client's Idempotency-Key: it binds for operations that
   * take keys, and makes a mutation safe to send again.
   */
  op<N extends OperationName>(
    name: N,
    input: OperationInput<N>,
    key?: string
  ): Promise<OperationOutput<N>>;
  /** Forwards a request the object answers itself (a socket upgrade, a stream). */
  fetch(request: Request): Promise<Response>;
}

interface PlatformError {
  retryable?: unknown;
  overloaded?: unknown;
  /** Set when the object was reset (crashed, aborted, redeployed) under the call. */
  durableObjectReset?: unknown;
}

const unavailable = (message: string): RoostError =>
  new RoostError("unavailable", message, {
    retry_after_seconds: RETRY_AFTER_SECONDS
  });

const pause = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether `name` may be sent again after an interruption: a read may, a
 * mutation with a key its operation binds may, and so may one whose entry
 * says how a second attempt is made safe.
 */
const mayRepeat = (name: OperationName, key: string | undefined): boolean => {
  const op = knownOperation(name);
  // An operation this worker never learned is refused by the object: once.
  return (
    op !== undefined &&
    (!op.mutates ||
      op.again !== undefined ||
      (key !== undefined && "idempotency" in op))
  );
};

/**
 * Sends operation `name` once per attempt until it is answered. Overloaded
 * objects are never retried (that worsens the overload); other retryable
 * errors are, when `mayRepeat`, up to MAX_ATTEMPTS with a fresh stub and a
 * backoff, then become 503 `unavailable`.
 */
const send = async <N extends OperationName>(
  stubOf: () => SessionStub,
  name: N,
  input: OperationInput<N>,
  grant: Grant,
  key: string | undefined
): Promise<OperationOutput<N>> => {
  const again = knownOperation(name)?.again;
  for (let attempt = 1; ; attempt++) {
    let result: RpcResult<OperationOutput<N>>;
    try {
      const stub = stubOf();
      result = await stub.op(name, input, grant, key);
      // A later attempt refused as the entry says proves the first one
      // committed: answer as it would have.
      if (
        !result.ok &&
        attempt > 1 &&
        typeof again === "object" &&
        result.error.code === again.refused
      ) {
        result = (
          again.answer === undefined
            ? { ok: true, value: undefined }
            : await stub.op(again.answer, {}, grant)
        ) as RpcResult<OperationOutput<N>>;
      }
    } catch (error) {
      const platform =
        error instanceof Error ? (error as PlatformError) : undefined;
      if (platform?.overloaded === true) {
        throw unavailable("The session is overloaded; retry later.");
      }
      // A reset object lost only what it had not committed, like any
      // retryable interruption.
      const interrupted =
        platform?.retryable === true || platform?.durableObjectReset === true;
      if (!interrupted) throw error;
      if (!mayRepeat(name, key)) {
        throw unavailable(
          "The session was interrupted; the request may or may not have been applied. Retry with an Idempotency-Key to make retries safe."
        );
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw unavailable(
          "The session is temporarily unavailable; retry later."
        );
      }
      await pause(FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      continue;
    }
    if (result.ok) return result.value;
    throw fromErrorBody(result.error);
  }
};

/**
 * A bare stub, for a caller with a policy of its own: a fork sends every
 * call once and abandons all its copies on any failure (fork-driver.ts).
 */
export const sessionStub = (
  namespace: DurableObjectNamespace<SessionObject>,
  id: DurableObjectId,
  locationHint?: DurableObjectLocationHint
): SessionStub =>
  namespace.get(
    id,
    locationHint === undefined ? undefined : { locationHint }
  ) as unknown as SessionStub;

/**
 * The session object `id` of `namespace` for a credential that holds
 * `grant` (every call carries it; the object checks it against each
 * operation's scope), placed near `locationHint` if it is new.
 */
export const gatewayTo = (
  namespace: DurableObjectNamespace<SessionObject>,
  id: DurableObjectId,
  grant: Grant,
  locationHint?: DurableObjectLocationHint
): SessionGateway => {
  const stubOf = () => sessionStub(namespace, id, locationHint);
  return {
    id,
    grant,
    op: (name, input, key) => send(stubOf, name, input, grant, key),
    fetch: (request) => stubOf().fetch(withGrant(request, grant))
  };
};

/** The session `sessionAuth` admitted this request to, with what its credential grants. */
export const sessionOf = (c: Context<AppEnv>): SessionGateway =>
  gatewayTo(c.env.SESSIONS, c.get("durableId"), c.get("grant"));

/**
 * Runs operation `name` on the admitted session with the request's
 * Idempotency-Key, for an operation that binds keys (the same as a
 * socket's request); other operations ignore the header, as they always
 * have over HTTP.
 */
export const runOperation = <N extends OperationName>(
  c: Context<AppEnv>,
  name: N,
  input: OperationInput<N>
): Promise<OperationOutput<N>> =>
  sessionOf(c).op(
    name,
    input,
    knownOperation(name)?.idempotency !== undefined
      ? c.req.header(IDEMPOTENCY_HEADER)
      : undefined
  );

/** The namespace for a jurisdiction; local workerd has none, which is the caller's to know. */
const inJurisdiction = (
  namespace: DurableObjectNamespace<SessionObject>,
  jurisdiction: Jurisdiction | undefined
): DurableObjectNamespace<SessionObject> => {
  if (jurisdiction === undefined) return namespace;
  try {
    return namespace.jurisdiction(jurisdiction);
  } catch {
    throw new RoostError(
      "invalid_request",
      `Sessions cannot be placed in jurisdiction "${jurisdiction}" here (local workerd has no jurisdictions); leave jurisdiction out.`,
      { field: "jurisdiction" }
    );
  }
};

export interface StartedSession {
  sessionId: string;
  token: string;
  session: SessionGateway;
}

/**
 * Creates a session's object and signs its token: how every transport
 * makes a session (POST /v1/sessions, MCP's initialize, Aviary's start,
 * OpenEnv's first reset). The caller checked the environment and task.
 */
export const startSession = async (
  c: Context<AppEnv>,
  init: {
    environment: string;
    task: unknown;
    /** The dataset task `task` was picked from, when it was (for the task statistics). */
    taskRef?: TaskRef;
    state?: InitialState;
    jurisdiction?: Jurisdiction;
    locationHint?: DurableObjectLocationHint;
  }
): Promise<StartedSession> => {
  const keys = await signingKeys(c.env);
  const namespace = inJurisdiction(c.env.SESSIONS, init.jurisdiction);
  const id = namespace.newUniqueId();
  const sessionId = id.toString();
  // The creator holds the session's first token, which is `control`.
  const session = gatewayTo(namespace, id, SERVER_GRANT, init.locationHint);
  await session.op("create", {
    sessionId,
    environment: init.environment,
    task: init.task,
    ...(init.taskRef === undefined ? {} : { taskRef: init.taskRef }),
    ...(init.state === undefined ? {} : { state: init.state })
  });
  return { sessionId, token: await signToken(keys, sessionId), session };
};
