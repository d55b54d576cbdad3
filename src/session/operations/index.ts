/**
 * @module The operation table: every session operation declared once. The
 * Durable Object's RPC, HTTP, the session WebSocket and MCP all reach a
 * session through `dispatch`, so an input check, an idempotency key, a
 * limit or a precondition is enforced once, whatever the transport.
 */

import { fromErrorBody, RoostError } from "../../errors";
import { issuesToErrorBody } from "../../protocol/error-body";
import type { Grant } from "../../protocol/scopes";
import { type IdempotencyKey, requestHash } from "../../storage/idempotency";
import type { SessionRuntime } from "../runtime";
import { checkGrant } from "./check-grant";
import { issueToken, readHidden, revokeTokens } from "./credentials";
import type { Operation } from "./define";
import {
  forkBegin,
  forkChunk,
  forkEnd,
  importAbort,
  importBegin,
  importChunk,
  importEnd
} from "./fork-steps";
import { create, destroy, events, expectUse, status } from "./lifecycle";
import { rescore } from "./rescore";
import { call, reset, step, tools } from "./reset-step-call";
import { cancelRun, readRun, startChat, startRun } from "./runs";
import { frame, messages, patchState, readState } from "./state";
import {
  addEntry,
  readStore,
  removeEntry,
  replaceEntry,
  storeKeys
} from "./store";
import { cancelTask, listTasks, readTask, startTask } from "./tasks";

export const OPERATIONS = {
  create,
  status,
  expectUse,
  destroy,
  events,
  reset,
  step,
  call,
  tools,
  readStore,
  storeKeys,
  addEntry,
  replaceEntry,
  removeEntry,
  readState,
  patchState,
  readHidden,
  rescore,
  issueToken,
  revokeTokens,
  messages,
  frame,
  startRun,
  startChat,
  readRun,
  cancelRun,
  startTask,
  readTask,
  listTasks,
  cancelTask,
  forkBegin,
  forkChunk,
  forkEnd,
  importBegin,
  importChunk,
  importEnd,
  importAbort
} as const;

export type OperationName = keyof typeof OPERATIONS;
type Table = typeof OPERATIONS;
export type OperationInput<N extends OperationName> = Parameters<
  Table[N]["handle"]
>[1];
export type OperationOutput<N extends OperationName> = Awaited<
  ReturnType<Table[N]["handle"]>
>;

export const IDEMPOTENCY_HEADER = "Idempotency-Key";

// Visible ASCII only: the key is echoed in messages and stored as text.
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Binds a client's Idempotency-Key to an operation: checked, scoped by the
 * operation, and hashed over the part of the input it declares (canonical
 * JSON), so the same request over HTTP or the WebSocket is one request.
 * An operation that declares no binding (a read, a cancel) ignores keys,
 * as its HTTP route always has.
 */
export const bindKey = async <I>(
  op: Operation<I, unknown>,
  input: I,
  key: string
): Promise<IdempotencyKey | undefined> => {
  if (!KEY_PATTERN.test(key)) {
    throw new RoostError(
      "invalid_request",
      `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters.`,
      { field: IDEMPOTENCY_HEADER }
    );
  }
  if (op.idempotency === undefined) return undefined;
  return {
    scope: op.idempotency.scope(input),
    key,
    hash: await requestHash(op.idempotency.hashed(input))
  };
};

/**
 * Runs operation `name` on a session for a credential that holds `grant`;
 * `key` is the client's Idempotency-Key, if it sent one. The input is parsed with the
 * operation's schema here, whatever checked it before: an RPC caller, a
 * socket frame and an HTTP body all meet the same contract, and a
 * transport's stricter checks (its documented limits) come on top.
 */
export const dispatch = async <N extends OperationName>(
  rt: SessionRuntime,
  name: N,
  input: OperationInput<N>,
  grant: Grant,
  key?: string
): Promise<OperationOutput<N>> => {
  const op = OPERATIONS[name] as Operation<unknown, unknown>;
  if (op === undefined || !Object.hasOwn(OPERATIONS, name)) {
    throw new RoostError("invalid_request", `Unknown operation "${name}".`);
  }
  checkGrant(rt.shared, name, op.scope, grant);
  const parsed = op.input().safeParse(input);
  if (!parsed.success) throw fromErrorBody(issuesToErrorBody(parsed.error));
  const checked = parsed.data as OperationInput<N>;
  const idem = key === undefined ? undefined : await bindKey(op, checked, key);
  return (await op.handle(rt, checked, idem)) as OperationOutput<N>;
};
